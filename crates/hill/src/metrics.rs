//! What a serving hill counts, for Prometheus (`GET /metrics`, in the
//! OpenMetrics text format): games, decisions and forfeits by reason as they
//! are stored, blocks, uploads by outcome, and what the server holds now
//! (connections, live pages, uploads waiting for their check).

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// A label set: `[("reason", "timeout")]`.
type Labels = Vec<(String, String)>;

/// The hill's counters and gauges, shared by its player and its page.
pub struct Metrics {
    registry: Registry,
    /// Games stored.
    pub games: Counter,
    /// Decisions asked of bots in the games stored.
    pub decisions: Counter,
    /// Forfeits in the games stored, by the reason's first word (`timeout`,
    /// `illegal`, `crashed`...).
    pub forfeits: Family<Labels, Counter>,
    /// Blocks played to their end.
    pub blocks: Counter,
    /// Uploads by outcome: `entered`, `refused` (by the check), `rejected`
    /// (before any check: a token, a name, an archive, the dates),
    /// `throttled`.
    pub uploads: Family<Labels, Counter>,
    /// Uploads waiting for their check or being checked.
    pub checks_waiting: Gauge,
    /// Connections open to the page.
    pub connections: Gauge,
    /// Live pages open (server-sent events).
    pub live_pages: Gauge,
    /// The reasons counted under their own label so far.
    reasons: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        let mut registry = Registry::with_prefix("koth_hill");
        let m = Metrics {
            registry: Registry::default(),
            games: Counter::default(),
            decisions: Counter::default(),
            forfeits: Family::default(),
            blocks: Counter::default(),
            uploads: Family::default(),
            checks_waiting: Gauge::default(),
            connections: Gauge::default(),
            live_pages: Gauge::default(),
            reasons: Default::default(),
        };
        registry.register("games", "Games stored", m.games.clone());
        registry.register(
            "decisions",
            "Decisions asked of bots in the games stored",
            m.decisions.clone(),
        );
        registry.register(
            "forfeits",
            "Forfeits in the games stored, by the reason's first word",
            m.forfeits.clone(),
        );
        registry.register("blocks", "Blocks played to their end", m.blocks.clone());
        registry.register(
            "uploads",
            "Uploads from the page, by outcome",
            m.uploads.clone(),
        );
        registry.register(
            "checks_waiting",
            "Uploads waiting for their check or being checked",
            m.checks_waiting.clone(),
        );
        registry.register(
            "connections",
            "Connections open to the page",
            m.connections.clone(),
        );
        registry.register(
            "live_pages",
            "Pages open on the live board",
            m.live_pages.clone(),
        );
        Metrics { registry, ..m }
    }
}

/// Reasons beyond this many kinds are counted as `other`: a label's values
/// stay few whatever bots do.
const REASON_KINDS: usize = 24;

impl Metrics {
    /// Counts a forfeit for `reason` (its first word, letters only).
    pub fn forfeit(&self, reason: &str) {
        let word: String = reason
            .split(|c: char| !c.is_ascii_alphabetic())
            .find(|w| !w.is_empty())
            .unwrap_or("other")
            .to_ascii_lowercase()
            .chars()
            .take(24)
            .collect();
        let word = {
            let mut known = self.reasons.lock().unwrap_or_else(|p| p.into_inner());
            if known.contains(&word) || known.len() < REASON_KINDS {
                known.insert(word.clone());
                word
            } else {
                "other".to_string()
            }
        };
        self.forfeits
            .get_or_create(&vec![("reason".to_string(), word)])
            .inc();
    }

    /// Counts an upload that ended as `outcome`.
    pub fn upload(&self, outcome: &str) {
        self.uploads
            .get_or_create(&vec![("outcome".to_string(), outcome.to_string())])
            .inc();
    }

    /// Everything, in the OpenMetrics text format.
    pub fn text(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_every_metric_and_its_counts() {
        let m = Metrics::default();
        m.games.inc_by(3);
        m.forfeit("timeout after 1000 ms");
        m.forfeit("timeout after 1000 ms");
        m.forfeit("illegal choice \"Tax\"");
        m.upload("entered");
        m.checks_waiting.set(2);
        let t = m.text();
        for line in [
            "koth_hill_games_total 3",
            "koth_hill_forfeits_total{reason=\"timeout\"} 2",
            "koth_hill_forfeits_total{reason=\"illegal\"} 1",
            "koth_hill_uploads_total{outcome=\"entered\"} 1",
            "koth_hill_checks_waiting 2",
            "# EOF",
        ] {
            assert!(t.lines().any(|l| l == line), "{line} in\n{t}");
        }
    }

    #[test]
    fn a_flood_of_new_reasons_is_counted_as_other() {
        let m = Metrics::default();
        for i in 0..100 {
            let word: String = (0..8)
                .map(|k| (b'a' + ((i >> k) & 1) as u8 + k as u8) as char)
                .collect();
            m.forfeit(&word);
        }
        let t = m.text();
        let kinds = t
            .lines()
            .filter(|l| l.starts_with("koth_hill_forfeits_total{"))
            .count();
        assert!(kinds <= REASON_KINDS + 1, "{kinds} kinds\n{t}");
        assert!(t.contains("reason=\"other\""), "{t}");
    }
}
