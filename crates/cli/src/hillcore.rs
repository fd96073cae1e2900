//! What every `koth hill` command shares: opening a hill with its game's
//! rules, how its games are played (threads, isolation), Ctrl-C, and the log
//! `serve` and `work` write.

use crate::front::Front;
use anyhow::Result;
use clap::Args;
use koth_entrants::BotKinds;
use koth_hill::{store, Hill};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How a hill's games are played: on how many threads, how isolated.
#[derive(Args, Debug, Clone, Copy)]
pub struct Workers {
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Isolation of the programs: auto, required or off (trusted programs).
    #[arg(long, value_name = "MODE", value_parser = crate::settings::parse_sandbox)]
    pub sandbox: Option<koth_process::Sandbox>,
}

impl Workers {
    /// Sets them on an open hill.
    pub fn apply<G: BotKinds>(self, hill: &mut Hill<G>) {
        hill.threads = crate::settings::threads(self.threads);
        hill.sandbox = self.sandbox.unwrap_or_default();
    }
}

/// The hill in `dir`, with its game's rules.
pub(crate) fn open<F: Front>(dir: &Path) -> Result<Hill<F::Game>> {
    let settings = store::open(dir)?.settings()?;
    let rules = F::recorded_rules(&settings.rules)?;
    let mut hill = Hill::<F::Game>::open(dir, rules, F::SCORING)?;
    // No folder: the hill keeps every game in its database.
    hill.ready = Some(Box::new(|rules, names, schedule, seed| {
        F::ready(rules, names, schedule, seed, None).map_err(|e| format!("{e:#}"))
    }));
    Ok(hill)
}

/// How often the standings' history takes a point while games are played.
pub(crate) const HISTORY_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Stops at the first Ctrl-C (after storing the games that finish).
pub(crate) fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if s.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        say(
            false,
            "\nstopping after the games under way (Ctrl-C again to quit at once)",
        );
    });
    stop
}

/// Set once `serve` logs through `tracing`: then what the hill has to say
/// goes to the log (one format on stderr), else to stderr as a line.
static LOGGING: AtomicBool = AtomicBool::new(false);

/// Says `text` on stderr: as a line of the log (at `warn` when `warn`) when
/// `serve` logs, else as it is.
pub(crate) fn say(warn: bool, text: &str) {
    if !LOGGING.load(Ordering::Relaxed) {
        eprintln!("{text}");
    } else if warn {
        tracing::warn!("{text}");
    } else {
        tracing::info!("{text}");
    }
}

/// The log of `serve` on stderr: a line per upload, block, change, refusal
/// and error, as text or JSON; `RUST_LOG` filters it (default: info).
pub(crate) fn start_log(format: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let log = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .with_target(false);
    // Already set (a second serve in one process): the first one's stays.
    let _ = if format == "json" {
        log.json().flatten_event(true).try_init()
    } else {
        log.try_init()
    };
    LOGGING.store(true, Ordering::Relaxed);
}

/// An audit's problems, then `what` it did and its verdict (problems are
/// counted as `kind`); a problem makes koth's exit status 1.
pub fn print_audit(report: &koth_hill::Audit, what: &str, kind: &str) {
    for p in &report.problems {
        out!("{p}");
    }
    out!(
        "{what}: {}",
        if report.problems.is_empty() {
            "all as stored".to_string()
        } else {
            format!("{} {kind}", report.problems.len())
        }
    );
    if !report.problems.is_empty() {
        crate::term::EXIT_STATUS.store(1, Ordering::SeqCst);
    }
}
