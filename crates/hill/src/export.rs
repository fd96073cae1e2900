//! A hill's games as JSON lines, as `koth hill games` writes them and an
//! entrant's author downloads them from the page; and a hill's page as
//! static files (`koth hill export`), to host anywhere once a contest is over.

use crate::error::HillError;
use crate::store::{Entrant, Store, StoredGame, Version};

/// One game's line, its keys in this order: its block, its number in the
/// block, each seat's entrant, version (1, 2...) and the hill's id of that
/// version, and its record as a run's games.jsonl holds it.
#[derive(serde::Serialize)]
pub struct GameLine<'a> {
    /// Its block.
    pub block: i64,
    /// Its number in the block.
    pub game: u64,
    /// Each seat's entrant.
    pub entrants: Vec<&'a str>,
    /// Each seat's version's number among its entrant's.
    pub versions: Vec<i64>,
    /// Each seat's version's id in the hill.
    pub version_ids: &'a [i64],
    /// The record, key for key as stored.
    pub record: &'a serde_json::value::RawValue,
}

/// Names the seats of stored games, from every entrant and version read once.
pub struct Seats {
    entrants: Vec<Entrant>,
    versions: Vec<Version>,
}

impl Seats {
    /// Reads them from `store`.
    pub fn of(store: &dyn Store) -> Result<Seats, HillError> {
        Ok(Seats {
            entrants: store.entrants()?,
            versions: store.versions()?,
        })
    }

    /// The entrant called `name`, or the error that lists the names.
    pub fn entrant(&self, name: &str) -> Result<&Entrant, HillError> {
        self.entrants
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.entrants.iter().map(|e| e.name.as_str()).collect();
                HillError::NotFound(format!(
                    "no entrant {name:?}\n  fix: one of {}",
                    names.join(", ")
                ))
            })
    }

    /// Version `v`'s entrant (its id and name) and its number.
    pub fn of_version(&self, v: i64) -> (Option<i64>, &str, i64) {
        let version = self.versions.iter().find(|x| x.id == v);
        let entrant = version
            .map(|x| x.entrant)
            .and_then(|id| self.entrants.iter().find(|e| e.id == id));
        (
            entrant.map(|e| e.id),
            entrant.map_or("?", |e| e.name.as_str()),
            version.map_or(0, |x| x.number),
        )
    }

    /// Whether entrant `id` sat at game `g`.
    pub fn played(&self, g: &StoredGame, id: i64) -> bool {
        g.seats.iter().any(|&v| self.of_version(v).0 == Some(id))
    }

    /// `g`'s line, its record as given (`record`: the stored one, or one
    /// with what the reader may not see taken out).
    pub fn line<'a>(
        &'a self,
        g: &'a StoredGame,
        record: &'a serde_json::value::RawValue,
    ) -> GameLine<'a> {
        let seats: Vec<_> = g.seats.iter().map(|&v| self.of_version(v)).collect();
        GameLine {
            block: g.block,
            game: g.index,
            entrants: seats.iter().map(|s| s.1).collect(),
            versions: seats.iter().map(|s| s.2).collect(),
            version_ids: &g.seats,
            record,
        }
    }
}

/// What [`site`] wrote.
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
pub fn site(
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
