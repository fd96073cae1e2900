//! A hill's page as static files (`koth hill export`), to host anywhere once
//! a contest is over.

use crate::error::HillError;

/// What [`export`] wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Exported {
    /// Entrants' pages.
    pub entrants: usize,
    /// Games, each step by step.
    pub games: usize,
    /// Round reports.
    pub rounds: usize,
}

/// Writes the hill in `dir`'s page into `out` (a folder that does not exist
/// yet) as static files: the page itself, which reads them instead of the
/// API and shows no form; the contest, `board` (the leaderboard as the page
/// reads it), the standings over time and the rounds; every entrant's page as
/// the public sees it, and every game those pages link to, step by step as
/// `view` draws them; and the rounds' reports. No stderr and no path of the
/// server's is in any of it.
pub fn export(
    dir: &std::path::Path,
    out: &std::path::Path,
    board: &str,
    view: Option<&crate::web::GameView>,
) -> Result<Exported, HillError> {
    if out.exists() {
        return Err(HillError::Conflict(format!(
            "{} is there already\n  fix: name a new folder for the export",
            out.display()
        )));
    }
    let store = crate::store::open_read(dir)?;
    let io = |e: std::io::Error, p: &std::path::Path| {
        HillError::Io(format!("cannot write {}: {e}", p.display()))
    };
    let write = |rel: &str, text: &str| -> Result<(), HillError> {
        let path = out.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(e, parent))?;
        }
        std::fs::write(&path, text).map_err(|e| io(e, &path))
    };
    let page = crate::web::PAGE.replacen(
        "<html lang=\"en\">",
        "<html lang=\"en\" data-static=\"1\">",
        1,
    );
    write("index.html", &page)?;
    write("page.js", crate::web::PAGE_JS)?;
    write("page.css", crate::web::PAGE_CSS)?;
    write("viewer.js", crate::web::VIEWER_JS)?;
    write("viewer.css", crate::web::VIEWER_CSS)?;
    let now = crate::store::now();
    let contest = crate::contest::page_json(
        &store.contest()?,
        &store.announcements()?,
        &store.rounds()?,
        now,
    );
    write("api/contest.json", &contest.to_string())?;
    write("api/board.json", board)?;
    write(
        "api/history.json",
        &crate::web::history_json(store.as_ref())?.to_string(),
    )?;
    write(
        "api/rounds.json",
        &serde_json::json!(store.rounds()?).to_string(),
    )?;
    let mut done = Exported::default();
    let mut games = std::collections::BTreeSet::new();
    for e in store.entrants()? {
        if e.status == crate::store::Status::Removed {
            continue;
        }
        // A name is a file's name here: only names the hill allows (no `/`,
        // no leading `.`) are written, whatever a damaged store holds.
        crate::service::check_name(&e.name)?;
        let page = crate::web::entrant_json(store.as_ref(), dir, &e.name, None)?;
        for list in ["recent", "forfeits"] {
            for g in page[list].as_array().into_iter().flatten() {
                if let (Some(b), Some(i)) = (g["block"].as_i64(), g["index"].as_u64()) {
                    games.insert((b, i));
                }
            }
        }
        write(&format!("api/entrant/{}.json", e.name), &page.to_string())?;
        done.entrants += 1;
    }
    for (b, i) in games {
        let g = crate::web::game_json(store.as_ref(), view, b, i, None)?;
        write(&format!("api/game/{b}/{i}.json"), &g.to_string())?;
        done.games += 1;
    }
    for r in store.rounds()? {
        let from = dir
            .join(crate::web::ROUNDS)
            .join(r.id.to_string())
            .join("report.html");
        if let Ok(text) = std::fs::read_to_string(&from) {
            write(&format!("rounds/{}/report.html", r.id), &text)?;
            done.rounds += 1;
        }
    }
    Ok(done)
}
