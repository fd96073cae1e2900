//! Micro benchmark: persistent-bot round trip and one-shot invoke overhead.
//!
//! ```text
//! cargo build --release -p koth-process --examples
//! cargo run --release -p koth-process --example roundtrip
//! ```
//!
//! Uses the compiled `echo_bot` example if it was built next to this binary, and `cat`
//! otherwise/as well. "our CPU" is the CPU time of the calling thread (getrusage
//! RUSAGE_THREAD), i.e. the cost the arena pays per round trip, excluding the bot.
use std::time::{Duration, Instant};

use koth_process::{invoke, sandbox_support, BotProcess, Command, Limits, Sandbox};

fn thread_cpu() -> Duration {
    // SAFETY: getrusage fills the struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn bench_bot(name: &str, program: Vec<String>, sandbox: Sandbox, n: u32) {
    let cmd = Command::new(program, std::env::temp_dir())
        .with_limits(Limits::standard())
        .with_sandbox(sandbox);
    let mut bot = match BotProcess::spawn(&cmd) {
        Ok(b) => b,
        Err(e) => {
            println!("{name}: cannot spawn: {e}");
            return;
        }
    };
    let line = "{\"type\":\"move\",\"state\":[1,2,3,4,5,6,7,8]}";
    for _ in 0..1000 {
        bot.send_line(line).expect("send");
        bot.read_line(Duration::from_secs(5), 1 << 16)
            .expect("read");
    }
    let cpu0 = thread_cpu();
    let t = Instant::now();
    for _ in 0..n {
        bot.send_line(line).expect("send");
        let r = bot
            .read_line(Duration::from_secs(5), 1 << 16)
            .expect("read");
        debug_assert_eq!(r, line);
    }
    let wall = t.elapsed();
    let cpu = thread_cpu() - cpu0;
    println!(
        "{name:<28} {n} round trips: {:>6.2} us wall, {:>5.2} us our CPU per round trip",
        wall.as_secs_f64() * 1e6 / n as f64,
        cpu.as_secs_f64() * 1e6 / n as f64
    );
}

/// Baseline without this crate: std pipes + BufReader, blocking.
fn bench_std_baseline(n: u32) {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new("cat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("cat");
    let mut w = child.stdin.take().expect("stdin");
    let mut r = BufReader::new(child.stdout.take().expect("stdout"));
    let line = "{\"type\":\"move\",\"state\":[1,2,3,4,5,6,7,8]}\n";
    let mut buf = String::new();
    let cpu0 = thread_cpu();
    let t = Instant::now();
    for _ in 0..n {
        w.write_all(line.as_bytes()).expect("write");
        buf.clear();
        r.read_line(&mut buf).expect("read");
    }
    let wall = t.elapsed();
    let cpu = thread_cpu() - cpu0;
    println!(
        "{:<28} {n} round trips: {:>6.2} us wall, {:>5.2} us our CPU per round trip",
        "baseline: std pipes + cat",
        wall.as_secs_f64() * 1e6 / n as f64,
        cpu.as_secs_f64() * 1e6 / n as f64
    );
    drop(w);
    let _ = child.wait();
}

fn bench_invoke(n: u32) {
    let t = Instant::now();
    for _ in 0..n {
        let st = std::process::Command::new("true").status().expect("true");
        assert!(st.success());
    }
    let bare = t.elapsed() / n;
    println!(
        "bare std::process::Command(\"true\").status(): {:>7.1} us",
        bare.as_secs_f64() * 1e6
    );
    let t = Instant::now();
    for _ in 0..n {
        use std::os::unix::process::CommandExt;
        let mut c = std::process::Command::new("true");
        // SAFETY: no-op hook; forces fork+exec like koth_process does.
        unsafe { c.pre_exec(|| Ok(())) };
        assert!(c.status().expect("true").success());
    }
    let forked = t.elapsed() / n;
    println!(
        "same with a no-op pre_exec (fork, no vfork):   {:>7.1} us",
        forked.as_secs_f64() * 1e6
    );
    for (name, sandbox) in [
        ("invoke, sandbox Off", Sandbox::Off),
        ("invoke, sandbox Auto", Sandbox::Auto),
    ] {
        let cmd = Command::new(["true"], std::env::temp_dir()).with_sandbox(sandbox);
        let t = Instant::now();
        for _ in 0..n {
            let r = invoke(&cmd, &[], Duration::from_secs(5), 1024);
            assert!(r.success(), "{:?}", r.exit);
        }
        let per = t.elapsed() / n;
        println!(
            "{name:<44} {:>7.1} us (+{:.1} us)",
            per.as_secs_f64() * 1e6,
            (per.as_secs_f64() - bare.as_secs_f64()) * 1e6
        );
    }
}

fn main() {
    let s = sandbox_support();
    println!("sandbox: {}", s.detail);
    let n = 20_000;
    let dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("echo_bot")));
    if let Some(echo) = dir.filter(|p| p.exists()) {
        let p = vec![echo.to_string_lossy().into_owned()];
        bench_bot("echo_bot, sandbox Off", p.clone(), Sandbox::Off, n);
        bench_bot("echo_bot, sandbox Auto", p, Sandbox::Auto, n);
    } else {
        println!("(echo_bot example not built; `cargo build --release --examples` to include it)");
    }
    bench_bot("cat, sandbox Off", vec!["cat".into()], Sandbox::Off, n);
    bench_bot("cat, sandbox Auto", vec!["cat".into()], Sandbox::Auto, n);
    bench_std_baseline(n);
    bench_invoke(300);
}
