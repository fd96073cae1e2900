//! The contest around a hill: its title and texts (Markdown, rendered safely),
//! its dates and the phase they give, its announcements, as the page shows
//! them.
//!
//! ```
//! use koth_hill::{contest, service, store, Author, Contest, Hill, Phase, Settings};
//! let dir = std::env::temp_dir().join(format!("koth-doc-contest-{}", std::process::id()));
//! let settings = Settings { game: "coup".into(), rules_name: "standard".into(), table: 2,
//!     ..Settings::default() };
//! Hill::<koth_coup::State>::init(&dir, &settings).unwrap();
//! let mut s = store::open(&dir).unwrap();
//! let deadline = contest::parse_time("2026-12-20T18:00:00Z").unwrap();
//! s.set_contest(&Contest { title: "Winter Coup".into(), deadline: Some(deadline),
//!     ..Contest::default() }).unwrap();
//! s.announce("The **deadline** is 20 December.").unwrap();
//! let alice = Author { name: "alice".into(), admin: false };
//! // Before the deadline an author may upload; after it, only the organiser.
//! assert!(service::uploads_open(s.as_ref(), Some(&alice), deadline - 1).is_ok());
//! assert!(service::uploads_open(s.as_ref(), Some(&alice), deadline).is_err());
//! assert!(service::uploads_open(s.as_ref(), None, deadline).is_ok());
//! assert_eq!(s.contest().unwrap().phase(deadline), Phase::Frozen);
//! let page = contest::page_json(&s.contest().unwrap(), &s.announcements().unwrap(), &[], deadline);
//! assert_eq!(page["announcements"][0]["html"], "<p>The <strong>deadline</strong> is 20 December.</p>\n");
//! # std::fs::remove_dir_all(&dir).ok();
//! ```

use crate::store::{Announcement, Contest, Phase, Round};

/// A moment as people write it: RFC 3339 (`2026-12-01T18:00:00Z`, or with
/// an offset `2026-12-01T19:00:00+01:00`), to seconds since 1970.
pub fn parse_time(text: &str) -> Result<i64, String> {
    text.trim()
        .parse::<jiff::Timestamp>()
        .map(|t| t.as_second())
        .map_err(|e| {
            format!("{text:?} is not a moment: {e}\n  fix: write it as 2026-12-01T18:00:00Z (UTC) or 2026-12-01T19:00:00+01:00")
        })
}

/// Seconds since 1970 as RFC 3339, in UTC (`2026-12-01T18:00:00Z`).
pub fn show_time(t: i64) -> String {
    jiff::Timestamp::from_second(t).map_or_else(|_| t.to_string(), |t| t.to_string())
}

/// Markdown as HTML a page may show: rendered, then cleaned of anything
/// that could run or load (scripts, handlers, styles, `javascript:` links;
/// links get `rel="noopener noreferrer"`), by ammonia's allow-list.
pub fn markdown(text: &str) -> String {
    let mut html = String::new();
    let parser = pulldown_cmark::Parser::new_ext(
        text,
        pulldown_cmark::Options::ENABLE_TABLES | pulldown_cmark::Options::ENABLE_STRIKETHROUGH,
    );
    pulldown_cmark::html::push_html(&mut html, parser);
    ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto"].into())
        .clean(&html)
        .to_string()
}

/// The contest as the page reads it (`GET /api/contest`): its texts as
/// cleaned HTML, its dates, its phase now, the announcements and, once
/// played, the final round.
pub fn page_json(
    contest: &Contest,
    announcements: &[Announcement],
    rounds: &[Round],
    now: i64,
) -> serde_json::Value {
    let time = |t: Option<i64>| t.map(show_time);
    let last_final = final_round(contest, rounds);
    serde_json::json!({
        "title": if contest.title.is_empty() { "koth hill" } else { contest.title.as_str() },
        "description_html": markdown(&contest.description),
        "rules_html": markdown(&contest.rules),
        "start": time(contest.start),
        "deadline": time(contest.deadline),
        "end": time(contest.end),
        "now": show_time(now),
        "phase": contest.phase(now),
        "announcements": announcements.iter().map(|a| serde_json::json!({
            "id": a.id, "at": show_time(a.at), "html": markdown(&a.text),
        })).collect::<Vec<_>>(),
        "beacon_source": (!contest.beacon.is_empty()).then_some(contest.beacon.as_str()),
        "final_round": last_final.map(|r| serde_json::json!({
            "id": r.id, "beacon": r.beacon,
            "beacon_normal": r.beacon.as_deref().map(beacon_normal_form),
            "standings": r.standings,
        })),
        "voided_finals": contest.voided.iter().map(|v| serde_json::json!({
            "round": v.round, "at": show_time(v.at), "reason": v.reason,
        })).collect::<Vec<_>>(),
    })
}

/// The contest's final round: the one played from a beacon and not voided.
pub fn final_round<'a>(contest: &Contest, rounds: &'a [Round]) -> Option<&'a Round> {
    rounds
        .iter()
        .rev()
        .find(|r| r.beacon.is_some() && !contest.voided.iter().any(|v| v.round == r.id))
}

/// A beacon's text in its normal form, what the final round's seed is drawn
/// from: its runs of letters and digits, lower case, one space apart. Two
/// spellings of one published text (`X + 2 9`, `x +2  9`) draw the same
/// seed, so the organiser cannot pick among spellings.
///
/// ```
/// use koth_hill::contest::beacon_normal_form;
/// assert_eq!(beacon_normal_form("X + 2 9"), beacon_normal_form("x +2  9"));
/// assert_eq!(beacon_normal_form("Lotto 2026-12-05: 4, 8, 15"), "lotto 2026 12 05 4 8 15");
/// ```
pub fn beacon_normal_form(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the phase means for an author, in words.
pub fn phase_words(contest: &Contest, now: i64) -> String {
    match contest.phase(now) {
        Phase::Soon => format!(
            "uploads open at {}",
            show_time(contest.start.unwrap_or_default())
        ),
        Phase::Open => match contest.deadline {
            Some(d) => format!("uploads open until {}", show_time(d)),
            None => "uploads open".into(),
        },
        Phase::Frozen => format!(
            "the field is frozen: uploads closed at {}",
            show_time(contest.deadline.unwrap_or_default())
        ),
        Phase::Ended => format!(
            "the contest ended at {}",
            show_time(contest.end.unwrap_or_default())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_read_and_write_as_rfc_3339() {
        assert_eq!(parse_time("2026-12-01T18:00:00Z"), Ok(1_796_148_000));
        assert_eq!(parse_time("2026-12-01T19:00:00+01:00"), Ok(1_796_148_000));
        assert_eq!(show_time(1_796_148_000), "2026-12-01T18:00:00Z");
        let e = parse_time("next friday").unwrap_err();
        assert!(e.contains("fix: write it as 2026-12-01T18:00:00Z"), "{e}");
    }

    #[test]
    fn the_phase_follows_the_dates() {
        let c = Contest {
            start: Some(100),
            deadline: Some(200),
            end: Some(300),
            ..Contest::default()
        };
        assert_eq!(c.phase(99), Phase::Soon);
        assert_eq!(c.phase(100), Phase::Open);
        assert_eq!(c.phase(199), Phase::Open);
        assert_eq!(c.phase(200), Phase::Frozen);
        assert_eq!(c.phase(300), Phase::Ended);
        assert_eq!(Contest::default().phase(i64::MAX), Phase::Open);
    }

    #[test]
    fn markdown_keeps_its_formatting_and_loses_anything_that_runs() {
        let html = markdown("# Rules\n\n**Bold** and [a link](https://example.org).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        for kept in [
            "<h1>Rules</h1>",
            "<strong>Bold</strong>",
            "href=\"https://example.org\"",
            "<table>",
            "<td>1</td>",
        ] {
            assert!(html.contains(kept), "{kept} in {html}");
        }
        let hostile = markdown(
            "<script>alert(1)</script> <img src=x onerror=alert(2)> <a href=\"x\" style=\"color:red\">s</a> <iframe src=\"https://evil\"></iframe>\n\n[click](javascript:alert(3)) <a href=\"javascript:alert(4)\">t</a>",
        );
        for gone in [
            "<script",
            "onerror",
            "href=\"javascript",
            "style=",
            "<iframe",
        ] {
            assert!(!hostile.contains(gone), "{gone} in {hostile}");
        }
    }
}
