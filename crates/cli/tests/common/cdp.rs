//! A headless Chromium driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: commands on its fd 3, answers on its fd 4, each a
//! JSON text ended by a NUL byte), for tests that watch a live page.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The browser, one page open.
pub struct Browser {
    child: Child,
    to: std::fs::File,
    from: BufReader<std::fs::File>,
    next: u64,
    session: String,
}

fn pipe() -> (i32, i32) {
    let mut fds = [0; 2];
    // SAFETY: a two-int array for pipe2 to fill.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    (fds[0], fds[1])
}

impl Browser {
    /// Chromium at `url`, with its profile in `profile`.
    pub fn open(url: &str, profile: &std::path::Path) -> Browser {
        let (cmd_r, cmd_w) = pipe();
        let (out_r, out_w) = pipe();
        let mut c = Command::new("/usr/bin/chromium");
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: only dup calls between fork and exec.
        unsafe {
            c.pre_exec(move || {
                let a = libc::fcntl(cmd_r, libc::F_DUPFD, 10);
                let b = libc::fcntl(out_w, libc::F_DUPFD, 10);
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = c.spawn().expect("chromium starts");
        // SAFETY: fds from pipe2 above, each owned once from here.
        let (to, from) = unsafe {
            libc::close(cmd_r);
            libc::close(out_w);
            (
                std::fs::File::from_raw_fd(cmd_w),
                std::fs::File::from_raw_fd(out_r),
            )
        };
        let mut b = Browser {
            child,
            to,
            from: BufReader::new(from),
            next: 0,
            session: String::new(),
        };
        let target = b.call("Target.createTarget", json!({ "url": url }), false);
        let id = target["targetId"].as_str().expect("a target").to_string();
        let attached = b.call(
            "Target.attachToTarget",
            json!({ "targetId": id, "flatten": true }),
            false,
        );
        b.session = attached["sessionId"]
            .as_str()
            .expect("a session")
            .to_string();
        b
    }

    /// Sends a command and waits for its result (events in between are skipped).
    pub fn call(&mut self, method: &str, params: Value, in_page: bool) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if in_page {
            msg["sessionId"] = json!(self.session);
        }
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.to.write_all(&bytes).expect("chromium reads commands");
        loop {
            let mut buf = Vec::new();
            let n = self.from.read_until(0, &mut buf).expect("chromium answers");
            assert!(n > 0, "chromium closed its pipe");
            buf.pop();
            let v: Value = serde_json::from_slice(&buf).expect("JSON from chromium");
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// The value of a JavaScript expression in the page.
    pub fn eval(&mut self, js: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": js, "returnByValue": true, "awaitPromise": true }),
            true,
        );
        r["result"]["value"].clone()
    }

    /// Waits until `js` is true in the page; its value then.
    pub fn wait_for(&mut self, js: &str, limit: Duration) -> Value {
        let start = Instant::now();
        loop {
            let v = self.eval(js);
            if v.as_bool() == Some(true) {
                return v;
            }
            assert!(start.elapsed() < limit, "waited {limit:?} for {js}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}
