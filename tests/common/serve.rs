//! `lmbench serve` started for a test: its port read from its first log
//! line, the rest of its log collected, the process killed and reaped on
//! drop.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lmbench_support::child::ChildGuard;

pub struct Served {
    pub guard: ChildGuard,
    /// `IP:PORT` of the control port.
    pub addr: String,
    log: Arc<Mutex<String>>,
}

impl Served {
    /// Runs `prefix... lmbench serve ARGS` (a prefix such as `ip netns
    /// exec NS`) and waits for its "listening on" line.
    pub fn start(prefix: &[&str], args: &[&str]) -> Served {
        let bin = env!("CARGO_BIN_EXE_lmbench");
        let mut cmd = match prefix.split_first() {
            Some((p, rest)) => {
                let mut c = Command::new(p);
                c.args(rest).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        cmd.arg("serve")
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::piped());
        let mut guard = ChildGuard::spawn(&mut cmd).expect("starting lmbench serve");
        let err = guard.child_mut().stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&log);
        // The log is read by a thread of the test process (no timed loop
        // runs here); it ends when the server's stderr closes.
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                sink.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = log.lock().unwrap().clone();
            if let Some(rest) = text.split("listening on ").nth(1) {
                let addr = rest.split([';', ' ', '\n']).next().unwrap().to_string();
                return Served { guard, addr, log };
            }
            if let Ok(Some(st)) = guard.child_mut().try_wait() {
                panic!("lmbench serve exited with {st}: {text}");
            }
            assert!(
                Instant::now() < deadline,
                "lmbench serve did not start: {text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the log contains `needle`.
    pub fn wait_log(&self, needle: &str) -> String {
        self.wait_log_count(needle, 1)
    }

    /// Waits until the log contains `needle` at least `n` times: the
    /// server logs a refusal after it has closed the connection, so a
    /// client that saw the close may read the log before the line is in.
    pub fn wait_log_count(&self, needle: &str, n: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let l = self.log();
            if l.matches(needle).count() >= n {
                return l;
            }
            assert!(
                Instant::now() < deadline,
                "fewer than {n} {needle:?} in the server log:\n{l}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
