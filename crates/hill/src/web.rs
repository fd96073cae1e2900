//! The hill's live page: the leaderboard pushed to every open page as games end
//! (server-sent events), an entrant's versions, results and recent games, and any
//! game step by step. The page ships inside the binary; whatever a bot wrote is
//! put on it as text, never as markup.

use crate::store::{Sqlite, Store};
use axum::extract::{Path as UrlPath, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
pub use tokio::sync::watch;
use tokio_stream::wrappers::WatchStream;
use tokio_stream::StreamExt;

/// Shows one stored game: its steps as the report's viewer draws them, or why not.
pub type GameView =
    Box<dyn Fn(&crate::StoredGame, &[String]) -> Result<serde_json::Value, String> + Send + Sync>;

/// What the page reads: the hill's folder, the latest snapshot of its board, and
/// how a game is shown.
pub struct Site {
    /// The hill's folder (its database is opened read-only per request).
    pub dir: PathBuf,
    /// The board as JSON, replaced after every stored batch of games.
    pub live: watch::Receiver<Arc<String>>,
    /// Draws a game for the viewer.
    pub view: Option<GameView>,
}

const PAGE: &str = include_str!("page.html");

/// Serves the page on `listen` from a thread of its own; gives the address it
/// is bound to (port 0 picks a free one).
pub fn serve(listen: SocketAddr, site: Site) -> std::io::Result<SocketAddr> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listener = rt.block_on(tokio::net::TcpListener::bind(listen))?;
    let addr = listener.local_addr()?;
    let app = Router::new()
        .route("/", get(page))
        .route("/api/board", get(board))
        .route("/api/live", get(live))
        .route("/api/entrant/{name}", get(entrant))
        .route("/api/game/{block}/{index}", get(game))
        .with_state(Arc::new(site));
    std::thread::Builder::new()
        .name("hill-web".into())
        .spawn(move || {
            rt.block_on(async move {
                let _ = axum::serve(listener, app).await;
            })
        })?;
    Ok(addr)
}

async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            // Nothing from elsewhere, no inline handlers from bots' text.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline' 'self'",
            ),
        ],
        PAGE,
    )
        .into_response()
}

fn json(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

async fn board(State(site): State<Arc<Site>>) -> Response {
    json(site.live.borrow().as_str().to_string())
}

async fn live(
    State(site): State<Arc<Site>>,
) -> Sse<impl tokio_stream::Stream<Item = Result<SseEvent, Infallible>>> {
    let stream = WatchStream::new(site.live.clone())
        .map(|s| Ok(SseEvent::default().event("board").data(s.as_str())));
    Sse::new(stream).keep_alive(KeepAlive::default())
}

fn not_found(what: String) -> Response {
    (StatusCode::NOT_FOUND, what).into_response()
}

/// Runs a read of the database off the async threads.
async fn read<T: Send + 'static>(
    site: &Arc<Site>,
    f: impl FnOnce(&Sqlite, &Site) -> Result<T, String> + Send + 'static,
) -> Result<T, Response> {
    let site = site.clone();
    tokio::task::spawn_blocking(move || {
        let store = Sqlite::open(&site.dir).map_err(|e| e.0)?;
        f(&store, &site)
    })
    .await
    .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response())?
    .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e).into_response())
}

/// The names of a block's entrants, by version.
fn names_of(store: &Sqlite, versions: &[i64]) -> Result<Vec<String>, String> {
    let all = store.versions().map_err(|e| e.0)?;
    let entrants = store.entrants().map_err(|e| e.0)?;
    Ok(versions
        .iter()
        .map(|v| {
            let ver = all.iter().find(|x| x.id == *v);
            let name = ver
                .and_then(|x| entrants.iter().find(|e| e.id == x.entrant))
                .map_or("?".to_string(), |e| e.name.clone());
            format!("{name} v{}", ver.map_or(0, |x| x.number))
        })
        .collect())
}

async fn entrant(State(site): State<Arc<Site>>, UrlPath(name): UrlPath<String>) -> Response {
    let r = read(&site, move |store, _| {
        let entrants = store.entrants().map_err(|e| e.0)?;
        let Some(e) = entrants.iter().find(|e| e.name == name) else {
            return Ok(None);
        };
        let versions: Vec<_> = store
            .versions()
            .map_err(|e| e.0)?
            .into_iter()
            .filter(|v| v.entrant == e.id)
            .collect();
        let events: Vec<_> = store
            .events(0)
            .map_err(|e| e.0)?
            .into_iter()
            .filter(|ev| ev.entrant == e.name)
            .collect();
        let mut recent = Vec::new();
        let mut forfeits = Vec::new();
        for g in store.recent_games(e.version, 30).map_err(|e| e.0)? {
            let rec: serde_json::Value = serde_json::from_str(&g.record).unwrap_or_default();
            let names = names_of(store, &g.seats)?;
            let seat_of_mine = g.seats.iter().position(|v| *v == e.version);
            for f in rec["forfeits"].as_array().into_iter().flatten() {
                if f["seat"].as_u64().map(|s| s as usize) == seat_of_mine {
                    forfeits.push(serde_json::json!({
                        "block": g.block, "index": g.index,
                        "reason": f["fault"]["reason"], "stderr": f["fault"]["stderr_tail"],
                    }));
                }
            }
            recent.push(serde_json::json!({
                "block": g.block, "index": g.index, "seats": names,
                "scores": rec["scores"], "winners": rec["outcome"]["winners"],
            }));
        }
        Ok(Some(serde_json::json!({
            "name": e.name, "status": e.status, "version": e.version,
            "versions": versions, "events": events, "recent": recent, "forfeits": forfeits,
        })))
    })
    .await;
    match r {
        Ok(Some(v)) => json(v.to_string()),
        Ok(None) => not_found("no such entrant".into()),
        Err(e) => e,
    }
}

async fn game(
    State(site): State<Arc<Site>>,
    UrlPath((block, index)): UrlPath<(i64, u64)>,
) -> Response {
    let r = read(&site, move |store, site| {
        let Some(g) = store.game(block, index).map_err(|e| e.0)? else {
            return Ok(None);
        };
        let names = names_of(store, &g.seats)?;
        let steps = match &site.view {
            Some(view) => view(&g, &names).unwrap_or_else(|e| serde_json::json!({ "error": e })),
            None => serde_json::Value::Null,
        };
        let record: serde_json::Value = serde_json::from_str(&g.record).unwrap_or_default();
        Ok(Some(serde_json::json!({
            "block": g.block, "index": g.index, "seats": names, "record": record, "steps": steps,
        })))
    })
    .await;
    match r {
        Ok(Some(v)) => json(v.to_string()),
        Ok(None) => not_found("no such game".into()),
        Err(e) => e,
    }
}

/// The board as the page reads it: the hill's facts and the leaderboard.
pub fn board_json(settings: &crate::Settings, board: &crate::Board, stored: u64) -> String {
    serde_json::json!({
        "game": settings.game,
        "rules": settings.rules_name,
        "table": settings.table,
        "games": stored,
        "counted": board.games,
        "rows": board.rows(),
        // When the snapshot was made, for the page to tell how late it is.
        "at_ms": std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
    })
    .to_string()
}
