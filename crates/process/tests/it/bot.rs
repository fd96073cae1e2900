use crate::common;

use std::time::{Duration, Instant};

use common::*;
use koth_process::{BotProcess, Exit, ProcessError};

const T: Duration = Duration::from_secs(10);

#[test]
fn echo_round_trips() {
    let mut b = BotProcess::spawn(&py("echo_lines.py")).expect("spawn");
    for i in 0..200 {
        let msg = format!("hello {i} {}", "x".repeat(i));
        b.send_line(&msg).expect("send");
        assert_eq!(b.read_line(T, 1 << 16).expect("read"), msg);
    }
    // Several lines in one send, read back one at a time.
    b.send_line("a\nb\r\nc").expect("send");
    assert_eq!(b.read_line(T, 100).unwrap(), "a");
    assert_eq!(b.read_line(T, 100).unwrap(), "b");
    assert_eq!(b.read_line(T, 100).unwrap(), "c");
    assert_eq!(b.exit_status(), None);
    assert!(b.pid() > 1);
    b.kill();
    assert!(b.exit_status().is_some());
    assert!(matches!(b.send_line("x"), Err(ProcessError::Closed)));
    assert!(matches!(b.read_line(T, 10), Err(ProcessError::Closed)));
}

#[test]
fn cat_round_trips_and_eof_on_close_stdin() {
    let mut b = BotProcess::spawn(&sh("cat")).expect("spawn");
    b.send_line("one").unwrap();
    assert_eq!(b.read_line(T, 100).unwrap(), "one");
    b.close_stdin();
    assert!(matches!(b.read_line(T, 100), Err(ProcessError::Closed)));
    let t = Instant::now();
    while b.exit_status().is_none() && t.elapsed() < T {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(b.exit_status(), Some(Exit::Code(0)));
}

#[test]
fn read_line_timeout() {
    let mut b = BotProcess::spawn(&sh("printf 'partial'; sleep 1000")).expect("spawn");
    let t = Instant::now();
    let r = b.read_line(Duration::from_millis(200), 100);
    let el = t.elapsed();
    assert!(
        matches!(r, Err(ProcessError::Timeout(d)) if d == Duration::from_millis(200)),
        "{r:?}"
    );
    assert!(
        el >= Duration::from_millis(200) && el < Duration::from_millis(900),
        "{el:?}"
    );
    // Zero timeout: immediate.
    let t = Instant::now();
    assert!(matches!(
        b.read_line(Duration::ZERO, 100),
        Err(ProcessError::Timeout(_))
    ));
    assert!(t.elapsed() < Duration::from_millis(200));
    // Huge timeout does not overflow.
    b.kill();
    assert!(matches!(
        b.read_line(Duration::MAX, 100),
        Err(ProcessError::Closed)
    ));
}

#[test]
fn over_long_line() {
    let mut b = BotProcess::spawn(&py("long_line.py").with_env("X", "1")).expect("spawn");
    let mut c = py("long_line.py");
    c.program.push("300000".into());
    let mut b2 = BotProcess::spawn(&c).expect("spawn");
    match b2.read_line(T, 1000) {
        Err(ProcessError::LineTooLong(n)) => assert!(n > 1000, "{n}"),
        other => panic!("{other:?}"),
    }
    // The rest of the over-long line is skipped; the stream resynchronises.
    assert_eq!(b2.read_line(T, 1000).unwrap(), "ok");
    b2.send_line("after").unwrap();
    assert_eq!(b2.read_line(T, 1000).unwrap(), "after");
    // A complete line just over the limit, already in the buffer.
    let mut c = py("long_line.py");
    c.program.push("11".into());
    let mut b3 = BotProcess::spawn(&c).expect("spawn");
    // Written and flushed: the program waits for input once both lines are out.
    common::wait_waiting_in("long_line.py 11", "pipe_read");
    assert!(matches!(
        b3.read_line(T, 10),
        Err(ProcessError::LineTooLong(11))
    ));
    assert_eq!(b3.read_line(T, 10).unwrap(), "ok");
    b.kill();
}

#[test]
fn bot_exit_is_closed() {
    let mut b = BotProcess::spawn(&sh("echo hi; printf 'last'; exit 3")).expect("spawn");
    assert_eq!(b.read_line(T, 100).unwrap(), "hi");
    // A final line without newline is still delivered.
    assert_eq!(b.read_line(T, 100).unwrap(), "last");
    assert!(matches!(b.read_line(T, 100), Err(ProcessError::Closed)));
    let t = Instant::now();
    while b.exit_status().is_none() && t.elapsed() < T {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(b.exit_status(), Some(Exit::Code(3)));
    // Writing to a dead bot: Closed (EPIPE), not a SIGPIPE crash (once the sandbox
    // around it, if any, is gone too).
    let mut r = Ok(());
    let t = Instant::now();
    while t.elapsed() < T {
        r = b.send_line("anyone?");
        if r.is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(matches!(r, Err(ProcessError::Closed)), "{r:?}");
    b.kill();
    assert_eq!(b.exit_status(), Some(Exit::Code(3)));
}

#[test]
fn stderr_flood_does_not_block() {
    let mut c = py("stderr_flood.py");
    c.program.push("--lines".into());
    let mut b = BotProcess::spawn(&c).expect("spawn");
    for i in 0..20 {
        let msg = format!("round {i}");
        b.send_line(&msg).unwrap();
        assert_eq!(b.read_line(T, 100).unwrap(), msg);
    }
    // stderr is collected asynchronously: give the reader a moment to catch up.
    let t = Instant::now();
    while !b.stderr_tail().ends_with("MARKER round 19\n") && t.elapsed() < T {
        std::thread::sleep(Duration::from_millis(5));
    }
    let tail = b.stderr_tail();
    assert!(tail.len() <= 4096, "{}", tail.len());
    assert!(tail.ends_with("MARKER round 19\n"), "{tail:?}");
}

#[test]
fn stderr_of_crashed_bot_is_available() {
    let mut b = BotProcess::spawn(&sh("echo 'Traceback: boom' >&2; exit 1")).expect("spawn");
    assert!(matches!(b.read_line(T, 100), Err(ProcessError::Closed)));
    let t = Instant::now();
    while !b.stderr_tail().contains("boom") && t.elapsed() < T {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(b.stderr_tail(), "Traceback: boom\n");
}

#[test]
fn kill_reaps_group() {
    // Process ids are read from the bot: no PID namespace here.
    let mut b = BotProcess::spawn(&unsandboxed(sh("sleep 1000 & echo $!; cat"))).expect("spawn");
    let pid: u32 = b.read_line(T, 100).unwrap().parse().unwrap();
    let leader = b.pid();
    assert!(!dead(pid) && !dead(leader));
    b.kill();
    assert!(wait_dead(pid), "grandchild {pid} survived");
    assert!(dead(leader), "leader not reaped");
    assert_eq!(b.exit_status(), Some(Exit::Signal(libc::SIGKILL)));
    b.kill(); // idempotent
}

#[test]
fn drop_kills_group() {
    let pid: u32;
    let leader: u32;
    {
        let c = unsandboxed(sh("sleep 1000 & echo $!; sleep 1000"));
        let mut b = BotProcess::spawn(&c).expect("spawn");
        pid = b.read_line(T, 100).unwrap().parse().unwrap();
        leader = b.pid();
    }
    assert!(wait_dead(pid));
    assert!(dead(leader));
}

#[test]
fn bot_not_reading_stdin_does_not_block_sender() {
    let mut b = BotProcess::spawn(&sh("sleep 1000")).expect("spawn");
    b.set_write_timeout(Duration::from_millis(200));
    let big = "y".repeat(100_000);
    let t = Instant::now();
    let mut result = Ok(());
    for _ in 0..100 {
        result = b.send_line(&big);
        if result.is_err() {
            break;
        }
    }
    assert!(
        matches!(result, Err(ProcessError::Timeout(_))),
        "{result:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn spawn_failure() {
    let c = koth_process::Command::new(["no-such-bot-binary-abc"], temp_dir("nobot"));
    match BotProcess::spawn(&c) {
        Err(ProcessError::Spawn(m)) => assert!(m.contains("no-such-bot-binary-abc"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn many_bots_in_parallel() {
    let mut bots: Vec<BotProcess> = (0..16)
        .map(|_| BotProcess::spawn(&sh("cat")).expect("spawn"))
        .collect();
    for round in 0..50 {
        for (i, b) in bots.iter_mut().enumerate() {
            b.send_line(&format!("{round}:{i}")).unwrap();
        }
        for (i, b) in bots.iter_mut().enumerate() {
            assert_eq!(b.read_line(T, 100).unwrap(), format!("{round}:{i}"));
        }
    }
}

#[test]
fn bot_process_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<BotProcess>();
    check::<ProcessError>();
}

#[test]
fn zero_max_len_and_empty_lines() {
    let mut b = BotProcess::spawn(&sh("cat")).expect("spawn");
    b.send_line("").unwrap();
    assert_eq!(b.read_line(T, 0).unwrap(), "");
    b.send_line("x").unwrap();
    assert!(matches!(
        b.read_line(T, 0),
        Err(ProcessError::LineTooLong(1))
    ));
    b.send_line("after").unwrap();
    assert_eq!(b.read_line(T, 10).unwrap(), "after");
}

#[test]
fn invalid_utf8_is_lossy() {
    let mut b = BotProcess::spawn(&sh("printf 'a\\377b\\n'; sleep 5")).expect("spawn");
    assert_eq!(b.read_line(T, 100).unwrap(), "a\u{FFFD}b");
}

/// A bot that floods stderr and crashes, over and over, fills its log file once:
/// each process keeps at most its share, the file at most its budget, and a note
/// says where it was cut.
#[test]
fn a_crash_looping_stderr_flood_fills_its_log_once() {
    let dir = temp_dir("flood-log");
    let log = dir.join("bot.log");
    for _ in 0..12 {
        let mut c = sh("head -c 3000000 /dev/zero | tr '\\0' x >&2; echo done");
        c.stderr_log = Some(log.clone());
        let mut b = BotProcess::spawn(&c).expect("spawn");
        assert_eq!(b.read_line(T, 100).unwrap(), "done");
        // What it wrote before its answer is read and logged before it ends.
        let mut pos = 0;
        b.stderr_since(&mut pos);
        b.kill();
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let len = text.len() as u64;
    assert!(
        len <= koth_process::STDERR_FILE_BYTES + 4096,
        "{len} bytes of log"
    );
    assert!(len >= koth_process::STDERR_FILE_BYTES - (1 << 20), "{len}");
    assert!(text.contains("was cut at 1024 KiB"), "a process's share");
    assert_eq!(
        text.matches("this log is full").count(),
        1,
        "the file's budget, said once"
    );
}
