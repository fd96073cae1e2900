//! A failure of the machine's, not the bot's: no file descriptor left to start
//! a bot's process. The games are played again once it clears, and no bot is
//! charged. Alone in its own test binary: it lowers the whole process's
//! open-files limit for a moment.

use koth_arena::{RecordLevel, Schedule, Scoring, Tournament};
use koth_coup::{builtin_entrant, Rules};
use koth_process::Command;
use koth_protocol::{json_entrant, JsonBotConfig};
use std::path::PathBuf;
use std::time::Duration;

mod common;
use common::Collect;

fn open_files() -> u64 {
    std::fs::read_dir("/proc/self/fd").unwrap().count() as u64
}

fn set_limit(soft: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain system calls on a local struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        lim.rlim_cur = soft.min(lim.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
    }
}

#[test]
fn a_bot_the_machine_cannot_start_is_charged_nothing_and_its_games_wait() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("tests/bots/fly.py").canonicalize().unwrap();
    let dir = script.parent().unwrap().to_path_buf();
    let argv = vec![
        "python3".to_string(),
        script.to_string_lossy().into_owned(),
        "calm".to_string(),
    ];
    let mut cfg = JsonBotConfig::new(Command::new(argv, dir));
    cfg.decision_timeout = Duration::from_millis(2000);
    let run = |cfg: JsonBotConfig, starve: bool| {
        let mut entrants: Vec<_> = ["honest", "random"]
            .iter()
            .map(|b| builtin_entrant(b, *b).unwrap())
            .collect();
        entrants.push(json_entrant("calm", cfg));
        let t = Tournament {
            rules: Rules::standard(),
            entrants,
            schedule: Schedule::RandomTables {
                games: 200,
                table: 3,
            },
            scoring: Scoring::ZeroSum,
            seed: 5,
            threads: 1,
            records: RecordLevel::Full,
            duplicate: false,
        };
        let mut c = Collect::default();
        let summary = std::thread::scope(|scope| {
            if starve {
                // Room for nothing more: the bot's pipes cannot be made. A
                // second later the limit is back.
                let (before, mut lim) = (
                    open_files(),
                    libc::rlimit {
                        rlim_cur: 0,
                        rlim_max: 0,
                    },
                );
                // SAFETY: a plain system call on a local struct.
                unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) };
                set_limit(before + 1);
                scope.spawn(move || {
                    std::thread::sleep(Duration::from_secs(1));
                    set_limit(lim.rlim_cur);
                });
            }
            t.run(&mut c)
        });
        (summary, c.0)
    };
    let (starved, games) = run(cfg.clone(), true);
    let (calm_run, calm) = run(cfg, false);
    eprintln!("calm in {:?}", calm_run.elapsed);
    eprintln!("{:?} in {:?}", starved.replays, starved.elapsed);
    assert!(starved.complete);
    assert!(starved.replays.machine >= 1, "{:?}", starved.replays);
    assert!(starved
        .replays
        .last_machine
        .as_deref()
        .is_some_and(|r| r.contains("Too many open files")));
    // Charged to no one, nothing lost: the games the run would have played.
    assert!(games.iter().all(|r| r.forfeits.is_empty()));
    assert_eq!(games, calm);
}
