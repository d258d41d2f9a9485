//! `lmbench serve --listen ADDR:PORT [--token T] [--idle SECS]`: the peer
//! server of the remote benches (see `lmbench_support::remote::server`).
//! It binds only the address it is given; a client must present the token
//! (`--token`, else `$LMBENCH_TOKEN`) when one is set. SIGINT or SIGTERM
//! stops it cleanly.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use lmbench_support::machine::Facts;
use lmbench_support::remote::client::TOKEN_ENV;
use lmbench_support::remote::server::{self, Config, Server};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// IP:PORT of the control port; nothing else is bound but services
    /// on the address a client reaches.
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: String,
    /// A shared secret clients must present (default: $LMBENCH_TOKEN).
    #[arg(long)]
    pub token: Option<String>,
    /// Close a session or service idle for this many seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub idle: u64,
}

/// A token is one word of printable ASCII (it travels in a protocol line).
fn check_token(t: &str) -> Result<()> {
    if t.is_empty() || t.len() > 128 || !t.bytes().all(|b| b.is_ascii_graphic()) {
        bail!("bad token: use 1-128 printable ASCII characters without spaces");
    }
    Ok(())
}

pub fn run(opts: Args) -> Result<()> {
    let listen: SocketAddr = opts.listen.parse().map_err(|_| {
        anyhow::anyhow!(
            "bad --listen {:?}: want IP:PORT, e.g. 192.0.2.7:31234 or [2001:db8::7]:31234 \
             (there is no default: the server listens only where you say)",
            opts.listen
        )
    })?;
    if opts.idle == 0 {
        bail!("--idle must be at least 1 second");
    }
    let token = match opts.token {
        Some(t) => Some(t),
        None => std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()),
    };
    if let Some(t) = &token {
        check_token(t)?;
    }
    let facts = Facts::collect();
    let cfg = Config {
        listen,
        token,
        idle: Duration::from_secs(opts.idle),
        host: facts.get("host").unwrap_or("unknown").to_string(),
        os: facts.os_label(),
    };
    let stop = server::stop_on_signals().context("installing SIGINT/SIGTERM handlers")?;
    let has_token = cfg.token.is_some();
    let srv = Server::bind(cfg)?;
    let at = srv.local_addr()?;
    eprintln!(
        "lmbench serve: listening on {at}{}; one client at a time; SIGINT or SIGTERM stops",
        if has_token { " (token required)" } else { "" }
    );
    srv.run(stop)?;
    Ok(())
}
