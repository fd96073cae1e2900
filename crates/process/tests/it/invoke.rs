use crate::common;

use std::time::{Duration, Instant};

use common::*;
use koth_process::{invoke, Exit};

const T: Duration = Duration::from_secs(10);

#[test]
fn echo_args_byte_exact() {
    let args: Vec<String> = vec![
        "plain".into(),
        "with spaces  and\ttabs".into(),
        "embedded\nnewline\r\n".into(),
        String::new(),
        "ünïcødé ✓".into(),
        "'quotes' \"double\" $HOME `x` *".into(),
    ];
    let r = invoke(&py("echo_args.py"), &args, T, 1 << 20);
    assert_eq!(r.exit, Exit::Code(0), "stderr: {}", r.stderr_tail);
    let mut expected = Vec::new();
    for a in &args {
        expected.extend_from_slice(a.as_bytes());
        expected.push(0);
    }
    assert_eq!(r.stdout, expected);
    assert!(!r.stdout_truncated);
    assert!(r.success());
}

#[test]
fn fixed_args_come_first() {
    let mut c = sh("printf '%s|' \"$@\"");
    c.program.push("zero".into());
    c.program.push("one".into());
    let r = invoke(&c, &["two".into(), "three".into()], T, 1024);
    assert_eq!(r.exit, Exit::Code(0));
    // "$0" is "zero" for sh -c.
    assert_eq!(r.stdout_lossy(), "one|two|three|");
}

#[test]
fn nonzero_exit_code() {
    let r = invoke(&sh("echo out; echo err >&2; exit 7"), &[], T, 1024);
    assert_eq!(r.exit, Exit::Code(7));
    assert_eq!(r.stdout, b"out\n");
    assert_eq!(r.stderr_tail, "err\n");
}

#[test]
fn killed_by_signal() {
    let r = invoke(&sh("kill -TERM $$; sleep 5"), &[], T, 1024);
    assert_eq!(r.exit, Exit::Signal(libc::SIGTERM));
}

#[test]
fn sleep_forever_times_out() {
    let t = Instant::now();
    let r = invoke(&sh("sleep 1000"), &[], Duration::from_millis(300), 1024);
    let el = t.elapsed();
    assert_eq!(r.exit, Exit::TimedOut);
    assert!(el >= Duration::from_millis(300), "{el:?}");
    assert!(el < Duration::from_millis(300 + 600), "took {el:?}");
}

#[test]
fn busy_loop_times_out() {
    let t = Instant::now();
    let r = invoke(
        &sh("while :; do :; done"),
        &[],
        Duration::from_millis(200),
        1024,
    );
    assert_eq!(r.exit, Exit::TimedOut);
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn huge_output_without_newline_is_truncated() {
    let t = Instant::now();
    let r = invoke(&sh("head -c 100000000 /dev/zero"), &[], T, 10_000);
    assert_eq!(r.exit, Exit::Code(0));
    assert_eq!(r.stdout.len(), 10_000);
    assert!(r.stdout_truncated);
    assert!(r.stdout.iter().all(|&b| b == 0));
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn endless_output_times_out_with_cap() {
    let r = invoke(&sh("yes"), &[], Duration::from_millis(300), 5000);
    assert_eq!(r.exit, Exit::TimedOut);
    assert_eq!(r.stdout.len(), 5000);
    assert!(r.stdout_truncated);
}

#[test]
fn exact_cap_is_not_truncated() {
    let r = invoke(&sh("printf 12345"), &[], T, 5);
    assert_eq!(r.stdout, b"12345");
    assert!(!r.stdout_truncated);
    let r = invoke(&sh("printf 123456"), &[], T, 5);
    assert_eq!(r.stdout, b"12345");
    assert!(r.stdout_truncated);
}

#[test]
fn stderr_flood_keeps_tail() {
    let r = invoke(&py("stderr_flood.py"), &["20".into()], T, 1024);
    assert_eq!(r.exit, Exit::Code(0));
    assert_eq!(r.stdout_lossy(), "done\n");
    assert!(
        r.stderr_tail.ends_with("END-OF-FLOOD\n"),
        "{:?}",
        &r.stderr_tail
    );
    assert!(r.stderr_tail.len() <= 4096 && r.stderr_tail.len() > 1000);
}

#[test]
fn background_child_holding_stdout_is_killed() {
    let t = Instant::now();
    // The grandchild inherits stdout and would keep the pipe open for 1000 s.
    // (Process ids read from the bot: no PID namespace here.)
    let r = invoke(
        &unsandboxed(sh("sleep 1000 & echo $!; exit 0")),
        &[],
        T,
        1024,
    );
    let el = t.elapsed();
    assert_eq!(r.exit, Exit::Code(0));
    assert!(el < Duration::from_millis(1000), "took {el:?}");
    let pid: u32 = r.stdout_lossy().trim().parse().expect("pid");
    assert!(wait_dead(pid), "grandchild {pid} survived");
}

#[test]
fn timeout_kills_whole_group() {
    let dir = temp_dir("group");
    let mut c = unsandboxed(sh("sleep 1000 & echo $! > pid; sleep 1000"));
    c.cwd = dir.clone();
    let r = invoke(&c, &[], Duration::from_millis(300), 1024);
    assert_eq!(r.exit, Exit::TimedOut);
    let pid: u32 = std::fs::read_to_string(dir.join("pid"))
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    assert!(wait_dead(pid), "grandchild {pid} survived");
}

#[test]
fn missing_program_is_spawn_failed() {
    let c = koth_process::Command::new(["definitely-not-a-program-xyz"], temp_dir("missing"));
    let r = invoke(&c, &[], T, 1024);
    match r.exit {
        Exit::SpawnFailed(msg) => assert!(msg.contains("definitely-not-a-program-xyz"), "{msg}"),
        other => panic!("{other:?}"),
    }
    let mut c = sh("true");
    c.cwd = "/nonexistent/dir/xyz".into();
    assert!(matches!(invoke(&c, &[], T, 1).exit, Exit::SpawnFailed(_)));
    let mut c = sh("true");
    c.program.clear();
    assert!(matches!(invoke(&c, &[], T, 1).exit, Exit::SpawnFailed(_)));
    let c = sh("true").with_env("BAD=KEY", "v");
    assert!(matches!(invoke(&c, &[], T, 1).exit, Exit::SpawnFailed(_)));
    let r = invoke(&sh("true"), &["nul\0byte".into()], T, 1);
    assert!(matches!(r.exit, Exit::SpawnFailed(_)), "{:?}", r.exit);
}

#[test]
fn cwd_and_env_respected() {
    let dir = temp_dir("cwd");
    let mut c = sh("pwd; echo \"$KOTH_TEST_VAR\"");
    c.cwd = dir.clone();
    let c = c.with_env("KOTH_TEST_VAR", "value 1");
    let r = invoke(&c, &[], T, 4096);
    assert_eq!(r.exit, Exit::Code(0));
    let canon = std::fs::canonicalize(&dir).expect("canon");
    assert_eq!(r.stdout_lossy(), format!("{}\nvalue 1\n", canon.display()));
}

#[test]
fn relative_program_resolved_in_cwd() {
    let dir = temp_dir("rel");
    std::fs::write(dir.join("bot.sh"), "#!/bin/sh\necho relative-ok\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.join("bot.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let c = koth_process::Command::new(["./bot.sh"], dir);
    let r = invoke(&c, &[], T, 4096);
    assert_eq!(r.exit, Exit::Code(0), "{:?} {}", r.exit, r.stderr_tail);
    assert_eq!(r.stdout_lossy(), "relative-ok\n");
}

#[test]
fn many_invocations_leave_no_zombies_or_fds() {
    let fds_before = std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0);
    for i in 0..50 {
        let r = invoke(&sh("echo $0"), &[], T, 64);
        assert_eq!(r.exit, Exit::Code(0), "run {i}");
    }
    let fds_after = std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0);
    // Other tests run concurrently and open fds too; allow slack but catch a leak per call.
    assert!(fds_after < fds_before + 20, "{fds_before} -> {fds_after}");
}

#[test]
fn extreme_timeouts() {
    let r = invoke(&sh("echo hi"), &[], Duration::MAX, usize::MAX);
    assert_eq!(r.exit, Exit::Code(0));
    assert_eq!(r.stdout, b"hi\n");
    let t = Instant::now();
    let r = invoke(&sh("sleep 1000"), &[], Duration::ZERO, 0);
    assert_eq!(r.exit, Exit::TimedOut);
    assert!(t.elapsed() < Duration::from_millis(300));
    let r = invoke(&sh("echo hi"), &[], T, 0);
    assert!(r.stdout.is_empty() && r.stdout_truncated);
}

#[test]
fn closed_pipes_but_still_running_times_out() {
    let t = Instant::now();
    let r = invoke(
        &sh("exec >&- 2>&-; sleep 1000"),
        &[],
        Duration::from_millis(200),
        10,
    );
    assert_eq!(r.exit, Exit::TimedOut);
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn a_bot_sees_an_allow_list_of_the_arena_environment_and_its_own() {
    // The test runner's environment is full of CARGO_* and RUST_* variables: none
    // may reach the bot; PATH must, and so must the bot's own variables.
    assert!(std::env::vars().any(|(k, _)| k.starts_with("CARGO")));
    let cmd = koth_process::Command::new(["env"], std::env::temp_dir())
        .with_sandbox(koth_process::Sandbox::Off)
        .with_env("MY_BOT_SETTING", "7");
    let r = invoke(&cmd, &[], T, 1 << 20);
    assert_eq!(r.exit, Exit::Code(0), "stderr: {}", r.stderr_tail);
    let names: Vec<String> = r
        .stdout_lossy()
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_owned()))
        .collect();
    assert!(names.contains(&"PATH".to_string()), "{names:?}");
    assert!(names.contains(&"MY_BOT_SETTING".to_string()), "{names:?}");
    for n in &names {
        assert!(
            koth_process::passed_to_bots(n) || n == "MY_BOT_SETTING",
            "{n} leaked from the arena's environment: {names:?}"
        );
    }
}
