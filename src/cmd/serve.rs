//! `lmbench serve --listen ADDR:PORT [--token T] [--idle SECS]`: the peer
//! server of the remote benches (see `lmbench_support::remote::server`).
//! It binds only the address it is given; a client must present the token
//! (`--token`, else `$LMBENCH_TOKEN`) when one is set. SIGINT or SIGTERM
//! stops it cleanly.

use std::net::SocketAddr;

use anyhow::{bail, Context, Result};
use lmbench::flags::{self, Secs};
use lmbench_support::machine::Facts;
use lmbench_support::remote::client::TOKEN_ENV;
use lmbench_support::remote::server::{self, Config, Server};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// IP:PORT of the control port; nothing else is bound but services
    /// on the address a client reaches.
    #[arg(long, value_name = "ADDR:PORT", value_parser = flags::with(parse_listen))]
    pub listen: SocketAddr,
    /// A shared secret clients must present (default: $LMBENCH_TOKEN):
    /// 1-128 printable ASCII characters without spaces.
    #[arg(long, value_parser = flags::with(|t| check_token(t).map(|()| t.to_string()).map_err(|e| e.to_string())))]
    pub token: Option<String>,
    /// Close a session or service idle for this many seconds (1 to 86400).
    #[arg(long, default_value = "60", value_name = "SECS")]
    pub idle: Secs,
}

fn parse_listen(s: &str) -> std::result::Result<SocketAddr, String> {
    s.parse().map_err(|_| {
        "want IP:PORT, e.g. 192.0.2.7:31234 or [2001:db8::7]:31234 (there is no default: \
         the server listens only where you say)"
            .to_string()
    })
}

/// A token is one word of printable ASCII (it travels in a protocol line).
fn check_token(t: &str) -> Result<()> {
    if t.is_empty() || t.len() > 128 || !t.bytes().all(|b| b.is_ascii_graphic()) {
        bail!("bad token: use 1-128 printable ASCII characters without spaces");
    }
    Ok(())
}

pub fn run(opts: Args) -> Result<()> {
    let listen = opts.listen;
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
        idle: opts.idle.get(),
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
