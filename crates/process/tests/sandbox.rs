mod common;

use std::net::TcpListener;
use std::time::Duration;

use common::*;
use koth_process::{invoke, sandbox_support, Exit, Sandbox};

const T: Duration = Duration::from_secs(20);

#[test]
fn report_support() {
    let s = sandbox_support();
    println!(
        "sandbox: no_network={} fs_write_confined={} landlock_abi={}: {}",
        s.no_network, s.fs_write_confined, s.landlock_abi, s.detail
    );
    assert!(!s.detail.is_empty());
    // Cached.
    assert!(std::ptr::eq(s, sandbox_support()));
}

#[test]
fn network_blocked() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port().to_string();
    let off = py("net_connect.py").with_sandbox(Sandbox::Off);
    let r = invoke(&off, std::slice::from_ref(&port), T, 1024);
    assert_eq!(r.stdout_lossy(), "connected\n", "{}", r.stderr_tail);
    if !sandbox_support().no_network {
        println!("SKIPPED network_blocked: {}", sandbox_support().detail);
        return;
    }
    let r = invoke(&py("net_connect.py"), &[port], T, 1024);
    assert_eq!(r.exit, Exit::Code(0), "{}", r.stderr_tail);
    assert!(
        r.stdout_lossy().starts_with("failed"),
        "{}",
        r.stdout_lossy()
    );
}

#[test]
fn writes_confined_to_cwd() {
    let outside = std::env::temp_dir().join(format!("koth-sandbox-outside-{}", std::process::id()));
    let _ = std::fs::remove_file(&outside);
    let mut c = py("write_files.py");
    let dir = c.cwd.clone();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let args = vec![
        "inside.txt".to_string(),
        "sub/nested.txt".to_string(),
        "/dev/null".to_string(),
        outside.to_string_lossy().into_owned(),
    ];
    if !sandbox_support().fs_write_confined {
        println!(
            "SKIPPED writes_confined_to_cwd: {}",
            sandbox_support().detail
        );
        return;
    }
    let r = invoke(&c, &args, T, 4096);
    assert_eq!(r.exit, Exit::Code(0), "{}", r.stderr_tail);
    let out = r.stdout_lossy();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "inside.txt ok");
    assert_eq!(lines[1], "sub/nested.txt ok");
    assert_eq!(lines[2], "/dev/null ok");
    assert!(
        lines[3].ends_with(&format!("denied {}", libc::EACCES)),
        "{out}"
    );
    assert!(!outside.exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("inside.txt")).unwrap(),
        "hello\n"
    );

    // TMPDIR points into the bot's directory, and shell redirections work there.
    c = sh("echo \"$TMPDIR\"; echo x > \"$TMPDIR/t\" && echo tmp-ok; echo y > /tmp/koth-nope-$$ || echo tmp-denied");
    let r = invoke(&c, &[], T, 4096);
    let out = r.stdout_lossy();
    assert!(
        out.contains("tmp-ok") && out.contains("tmp-denied"),
        "{out}"
    );

    // Without the sandbox the same write succeeds.
    c = py("write_files.py").with_sandbox(Sandbox::Off);
    let r = invoke(&c, &[outside.to_string_lossy().into_owned()], T, 4096);
    assert!(r.stdout_lossy().ends_with(" ok\n"), "{}", r.stdout_lossy());
    assert!(outside.exists());
    let _ = std::fs::remove_file(&outside);
}

#[test]
fn required_sandbox() {
    let s = sandbox_support();
    let c = sh("echo fine").with_sandbox(Sandbox::Required);
    let r = invoke(&c, &[], T, 1024);
    if s.no_network && s.fs_write_confined {
        assert_eq!(r.exit, Exit::Code(0));
    } else {
        match r.exit {
            Exit::SpawnFailed(m) => assert!(m.contains("sandbox required"), "{m}"),
            other => panic!("{other:?}"),
        }
        println!("Required sandbox refused as expected: {}", s.detail);
    }
}

#[test]
fn sandboxed_bot_process_works() {
    let mut b = koth_process::BotProcess::spawn(&py("echo_lines.py")).expect("spawn");
    b.send_line("sandboxed").unwrap();
    assert_eq!(b.read_line(T, 100).unwrap(), "sandboxed");
}
