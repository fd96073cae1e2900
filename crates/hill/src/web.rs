//! The hill's live page: the leaderboard pushed to every open page as games end
//! (server-sent events), an entrant's versions, results and recent games, and any
//! game step by step. The page ships inside the binary; whatever a bot wrote is
//! put on it as text, never as markup.

use crate::error::{HillError, Kind};
use crate::service;
use crate::store::{Author, Change, Entrant, Store, Version};
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

/// Shows one stored game: its steps as the report's viewer draws them (and,
/// under `record`, its record with every choice when the stored one is results
/// only), or why not.
pub type GameView =
    Box<dyn Fn(&crate::StoredGame, &[String]) -> Result<serde_json::Value, String> + Send + Sync>;

/// A bot uploaded from the page, unpacked and ready to be checked and entered.
pub struct Submission {
    /// Who sent it.
    pub author: Author,
    /// `Add` or `Update`.
    pub change: Change,
    /// The entrant's name.
    pub name: String,
    /// How to run it, from inside its folder (`python3 bot.py`).
    pub command: String,
    /// Its unpacked folder (removed after the call).
    pub folder: PathBuf,
}

/// Checks and enters a submission: what the check said, either way.
pub type Submit = Box<dyn Fn(&Submission) -> Result<String, Refused> + Send + Sync>;

/// Why a submission did not enter, and whether a check was run for it (only
/// those count toward [`CHECKS_PER_WINDOW`]).
#[derive(Debug, Clone)]
pub struct Refused {
    /// The reason, or the check's report.
    pub why: String,
    /// A check was run.
    pub checked: bool,
}

/// What the page reads: the hill's folder, the latest snapshot of its board, and
/// how a game is shown.
pub struct Site {
    /// The hill's folder (its database is opened per request).
    pub dir: PathBuf,
    /// The board as JSON, replaced after every stored batch of games.
    pub live: watch::Receiver<Arc<String>>,
    /// Draws a game for the viewer.
    pub view: Option<GameView>,
    /// Takes a bot uploaded from the page, or why this hill takes none.
    pub submit: Result<Submit, String>,
    /// What an upload may hold.
    pub limits: crate::upload::Limits,
    /// What the server holds at most at once (connections, streams, uploads).
    pub server: crate::conn::ServerLimits,
}

/// The most an upload may weigh, packed.
pub const MAX_UPLOAD: usize = 16 << 20;

const PAGE: &str = include_str!("page.html");
const PAGE_JS: &str = include_str!("page.js");
const PAGE_CSS: &str = include_str!("page.css");

/// Serves the page on `listen` from a thread of its own; gives the address it
/// is bound to (port 0 picks a free one).
pub fn serve(listen: SocketAddr, site: Site) -> std::io::Result<SocketAddr> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listener = rt.block_on(tokio::net::TcpListener::bind(listen))?;
    let addr = listener.local_addr()?;
    let server = site.server;
    let listener = crate::conn::Bounded::new(listener, server);
    let app = Router::new()
        .route("/", get(page))
        .route("/page.js", get(page_js))
        .route("/page.css", get(page_css))
        .route("/api/board", get(board))
        .route("/api/live", get(live))
        .route("/api/entrant/{name}", get(entrant))
        .route("/api/game/{block}/{index}", get(game))
        .route("/api/history", get(history))
        .route("/api/rounds", get(rounds))
        .route("/rounds/{n}", get(round_report))
        .route("/api/submit", axum::routing::post(submit))
        .route("/api/checks", get(checks))
        .route("/api/entrant/{name}/{action}", axum::routing::post(act))
        .route("/api/entrant/{name}/log", get(log))
        .layer(axum::extract::DefaultBodyLimit::max(
            MAX_UPLOAD + (64 << 10),
        ))
        .with_state(Arc::new(Shared {
            site,
            checks: Default::default(),
            waiting: Default::default(),
            streams: Arc::new(tokio::sync::Semaphore::new(server.streams)),
            bodies: Arc::new(tokio::sync::Semaphore::new(server.uploads)),
            recent: Default::default(),
        }));
    std::thread::Builder::new()
        .name("hill-web".into())
        .spawn(move || {
            rt.block_on(async move {
                let _ = axum::serve(listener, app).await;
            })
        })?;
    Ok(addr)
}

/// What the page may load and run: its own script and style files and
/// nothing else (no inline script, handler or style: a bot's text put on the
/// page can never run, and the page's own code sets handlers and styles
/// through the DOM).
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
        ],
        PAGE,
    )
        .into_response()
}

async fn page_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        PAGE_JS,
    )
        .into_response()
}

async fn page_css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        PAGE_CSS,
    )
        .into_response()
}

fn json(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

async fn board(State(shared): State<Arc<Shared>>) -> Response {
    json(shared.site.live.borrow().as_str().to_string())
}

/// The live board, to at most [`crate::conn::ServerLimits::streams`] pages at
/// once; one more is told to come back (the page then reads `/api/board`).
async fn live(State(shared): State<Arc<Shared>>) -> Response {
    let Ok(place) = shared.streams.clone().try_acquire_owned() else {
        return busy("too many live pages open: try again in a minute");
    };
    let stream = WatchStream::new(shared.site.live.clone()).map(move |s| {
        // The place is held as long as the stream lives.
        let _ = &place;
        Ok::<_, Infallible>(SseEvent::default().event("board").data(s.as_str()))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// 503 with when to come back.
fn busy(why: &str) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "30")],
        why.to_string(),
    )
        .into_response()
}

fn not_found(what: String) -> Response {
    (StatusCode::NOT_FOUND, what).into_response()
}

/// Runs a read of the database off the async threads, through a read-only
/// store (it never waits for the writer).
async fn read<T: Send + 'static>(
    shared: &Arc<Shared>,
    f: impl FnOnce(&mut dyn Store, &Site) -> Result<T, HillError> + Send + 'static,
) -> Result<T, Response> {
    let shared = shared.clone();
    tokio::task::spawn_blocking(move || {
        let mut store = crate::store::open_read(&shared.site.dir)?;
        f(store.as_mut(), &shared.site)
    })
    .await
    .map_err(|e| refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|e| refusal(&e))
}

/// The HTTP status of an error's kind: the one place it is chosen, by the
/// kind, never by the words.
pub fn status_of(kind: Kind) -> StatusCode {
    match kind {
        Kind::NotFound => StatusCode::NOT_FOUND,
        Kind::Forbidden => StatusCode::FORBIDDEN,
        Kind::Conflict => StatusCode::CONFLICT,
        Kind::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
        Kind::Failed => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The answer to an error.
fn refusal(e: &HillError) -> Response {
    refuse(status_of(e.kind()), e.to_string())
}

/// `text` with the hill's folder (where its versions live) left out: no
/// path of the server's on a public page.
pub fn scrub(text: &str, dir: &std::path::Path) -> String {
    let mut out = text.to_string();
    let mut spellings = vec![koth_process::absolute(dir)];
    if let Ok(real) = std::fs::canonicalize(dir) {
        spellings.push(real);
    }
    for d in spellings {
        let d = d.display().to_string();
        if d.len() > 1 {
            out = out.replace(&format!("{d}/"), "").replace(&d, "the hill");
        }
    }
    out
}

/// `v` without what programs wrote to stderr (`stderr_tail`, `stderr`),
/// wherever it is.
fn strip_stderr(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            o.remove("stderr_tail");
            o.remove("stderr");
            o.values_mut().for_each(strip_stderr);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_stderr),
        _ => {}
    }
}

/// The names of a game's seats, by version (`honest v2`), from every version
/// and entrant read once.
fn names_of(all: &[Version], entrants: &[Entrant], versions: &[i64]) -> Vec<String> {
    versions
        .iter()
        .map(|v| {
            let ver = all.iter().find(|x| x.id == *v);
            let name = ver
                .and_then(|x| entrants.iter().find(|e| e.id == x.entrant))
                .map_or("?".to_string(), |e| e.name.clone());
            format!("{name} v{}", ver.map_or(0, |x| x.number))
        })
        .collect()
}

/// `GET /api/entrant/{name}`: its versions, events, results and recent games,
/// and its forfeits with their reasons; each forfeit's stderr only for its
/// author or the organiser (their token in `Authorization: Bearer`). No path of
/// the server's is shown: a version is its command, not its folder.
async fn entrant(
    State(shared): State<Arc<Shared>>,
    UrlPath(name): UrlPath<String>,
    headers: axum::http::HeaderMap,
) -> Response {
    let token = bearer(&headers);
    let r = read(&shared, move |store, site| {
        let entrants = store.entrants()?;
        let Some(e) = entrants.iter().find(|e| e.name == name) else {
            return Err(HillError::NotFound(format!("no entrant {name:?}")));
        };
        let viewer = match &token {
            Some(t) => service::author_of(store, t).ok(),
            None => None,
        };
        let own = viewer.as_ref().is_some_and(|a| service::owns(a, e));
        // Read once: every recent game's seats are named from them.
        let every_version = store.versions()?;
        let versions: Vec<_> = every_version
            .clone()
            .into_iter()
            .filter(|v| v.entrant == e.id)
            .map(|mut v| {
                if let Some(o) = v.spec.as_object_mut() {
                    o.remove("folder");
                }
                v
            })
            .collect();
        let events: Vec<_> = store
            .events(0)?
            .into_iter()
            .filter(|ev| ev.entrant == e.name)
            .collect();
        let mut recent = Vec::new();
        let mut forfeits = Vec::new();
        for g in store.recent_games(e.version, 30)? {
            let rec: serde_json::Value = serde_json::from_str(&g.record).unwrap_or_default();
            let names = names_of(&every_version, &entrants, &g.seats);
            let seat_of_mine = g.seats.iter().position(|v| *v == e.version);
            for f in rec["forfeits"].as_array().into_iter().flatten() {
                if f["seat"].as_u64().map(|s| s as usize) == seat_of_mine {
                    let reason =
                        scrub(f["fault"]["reason"].as_str().unwrap_or_default(), &site.dir);
                    let mut item = serde_json::json!({
                        "block": g.block, "index": g.index, "reason": reason,
                    });
                    if own {
                        item["stderr"] = f["fault"]["stderr_tail"].clone();
                    }
                    forfeits.push(item);
                }
            }
            recent.push(serde_json::json!({
                "block": g.block, "index": g.index, "seats": names,
                "scores": rec["scores"], "winners": rec["outcome"]["winners"],
            }));
        }
        // Each version's results over all its games, whoever it met: kept by
        // the store as games are stored, not counted here.
        let kept = store.results()?;
        let results: Vec<_> = versions
            .iter()
            .map(|v| {
                let r = kept.get(&v.id).copied().unwrap_or_default();
                serde_json::json!({
                    "version": v.number, "games": r.games, "forfeits": r.forfeits,
                    "mean": r.mean(),
                })
            })
            .collect();
        Ok(serde_json::json!({
            "name": e.name, "status": e.status, "version": e.version,
            "versions": versions, "events": events, "recent": recent, "forfeits": forfeits,
            "results": results, "stderr_shown": own,
        }))
    })
    .await;
    match r {
        Ok(v) => json(v.to_string()),
        Err(e) => e,
    }
}

/// `GET /api/game/{block}/{index}`: a game step by step and its record; what
/// its programs wrote to stderr only for the organiser (token in
/// `Authorization: Bearer`), the reasons of its faults for all.
async fn game(
    State(shared): State<Arc<Shared>>,
    UrlPath((block, index)): UrlPath<(i64, u64)>,
    headers: axum::http::HeaderMap,
) -> Response {
    let token = bearer(&headers);
    let r = read(&shared, move |store, site| {
        let organiser = token
            .as_ref()
            .and_then(|t| service::author_of(store, t).ok())
            .is_some_and(|a| a.admin);
        let Some(g) = store.game(block, index)? else {
            return Err(HillError::NotFound(format!(
                "no game {index} in block {block}"
            )));
        };
        let names = names_of(&store.versions()?, &store.entrants()?, &g.seats);
        let mut steps = match &site.view {
            Some(view) => view(&g, &names).unwrap_or_else(|e| serde_json::json!({ "error": e })),
            None => serde_json::Value::Null,
        };
        // The view's record has every choice, even of a game kept as results.
        let record = match steps.as_object_mut().and_then(|o| o.remove("record")) {
            Some(r) => r,
            None => serde_json::from_str(&g.record).unwrap_or_default(),
        };
        let mut out = serde_json::json!({
            "block": g.block, "index": g.index, "seats": names, "record": record, "steps": steps,
        });
        if !organiser {
            strip_stderr(&mut out);
        }
        Ok(out)
    })
    .await;
    match r {
        Ok(v) => json(v.to_string()),
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
        "h2h": head_to_head(board),
        // When the snapshot was made, for the page to tell how late it is.
        "at_ms": std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
    })
    .to_string()
}

/// The site, and what the server holds at once.
struct Shared {
    site: Site,
    /// One upload is checked at a time: held by the check itself, on its own
    /// thread, so a client that goes away neither cuts the check short nor lets
    /// the next one start beside it.
    checks: Arc<std::sync::Mutex<()>>,
    /// Uploads waiting for their check or being checked.
    waiting: Arc<std::sync::atomic::AtomicUsize>,
    /// Places for live pages.
    streams: Arc<tokio::sync::Semaphore>,
    /// Places for uploads being received.
    bodies: Arc<tokio::sync::Semaphore>,
    /// Each author's recent checks and uploads, for [`CHECKS_PER_WINDOW`] and
    /// [`UPLOADS_PER_WINDOW`].
    recent: std::sync::Mutex<std::collections::HashMap<String, Sent>>,
}

/// When an author's recent checks and uploads were (in that order).
type Sent = (Vec<std::time::Instant>, Vec<std::time::Instant>);

/// Checks an author's uploads may cost in [`UPLOAD_WINDOW`] (a check costs the
/// machine seconds); an upload refused before its check is not counted here.
/// The organiser's token is not counted.
pub const CHECKS_PER_WINDOW: usize = 10;
/// Uploads of any outcome an author may send in [`UPLOAD_WINDOW`] (each is
/// received and unpacked).
pub const UPLOADS_PER_WINDOW: usize = 60;
/// See [`CHECKS_PER_WINDOW`].
pub const UPLOAD_WINDOW: std::time::Duration = std::time::Duration::from_secs(600);

impl Shared {
    /// Counts an upload of `author`'s, or says when they may send the next:
    /// at most [`UPLOADS_PER_WINDOW`] uploads and [`CHECKS_PER_WINDOW`] checks.
    fn count_upload(&self, author: &Author) -> Result<(), String> {
        if author.admin {
            return Ok(());
        }
        let now = std::time::Instant::now();
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        let (checks, uploads) = recent.entry(author.name.clone()).or_default();
        checks.retain(|t| now.duration_since(*t) < UPLOAD_WINDOW);
        uploads.retain(|t| now.duration_since(*t) < UPLOAD_WINDOW);
        let full = |sent: &Vec<std::time::Instant>, most: usize, what: &str| {
            (sent.len() >= most).then(|| {
                let wait = UPLOAD_WINDOW.saturating_sub(now.duration_since(sent[0]));
                format!(
                    "too many {what}: {most} in the last {} minutes; the next in {} s",
                    UPLOAD_WINDOW.as_secs() / 60,
                    wait.as_secs() + 1
                )
            })
        };
        if let Some(why) = full(checks, CHECKS_PER_WINDOW, "uploads checked")
            .or_else(|| full(uploads, UPLOADS_PER_WINDOW, "uploads"))
        {
            return Err(why);
        }
        uploads.push(now);
        Ok(())
    }

    /// Counts a check run for `author`'s upload.
    fn count_check(&self, author: &Author) {
        if author.admin {
            return;
        }
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent
            .entry(author.name.clone())
            .or_default()
            .0
            .push(std::time::Instant::now());
    }
}

fn refuse(code: StatusCode, why: impl Into<String>) -> Response {
    (code, why.into()).into_response()
}

/// The token a request carries in `Authorization: Bearer TOKEN`, if any.
fn bearer(headers: &axum::http::HeaderMap) -> Option<String> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    v.strip_prefix("Bearer ").map(|t| t.trim().to_string())
}

/// Whose `token` is (read off the async threads), or the refusal to send.
async fn authenticate(shared: &Arc<Shared>, token: String) -> Result<Author, Response> {
    read(shared, move |store, _| service::author_of(store, &token)).await
}

/// `POST /api/submit`: a multipart form with `token`, `name`, `command`,
/// `change` (`add` or `update`) and `archive` (a tar, tar.gz or zip of the bot's
/// folder), the token before the archive (or in `Authorization: Bearer`): no
/// byte of an archive is kept before its token is known. Answers the check's
/// report: 200 when the bot entered, 403 for a bad token or someone else's
/// entrant, 422 for an archive or a bot refused, 503 when uploads are already
/// being received (at most [`crate::conn::ServerLimits::uploads`] at once).
async fn submit(
    State(shared): State<Arc<Shared>>,
    headers: axum::http::HeaderMap,
    mut form: axum::extract::Multipart,
) -> Response {
    let Ok(_receiving) = shared.bodies.clone().try_acquire_owned() else {
        return busy("the hill is receiving other uploads: send it again in a moment");
    };
    let mut author = None;
    if let Some(token) = bearer(&headers) {
        match authenticate(&shared, token).await {
            Ok(a) => author = Some(a),
            Err(refused) => return refused,
        }
    }
    let mut fields: std::collections::HashMap<String, Vec<u8>> = Default::default();
    loop {
        match form.next_field().await {
            Ok(Some(f)) => {
                let name = f.name().unwrap_or_default().to_string();
                if name == "archive" && author.is_none() {
                    return refuse(
                        StatusCode::FORBIDDEN,
                        "no token before the archive: send the token field first (or in Authorization: Bearer)",
                    );
                }
                match f.bytes().await {
                    Ok(b) => {
                        if name == "token" && author.is_none() {
                            let token = String::from_utf8_lossy(&b).trim().to_string();
                            match authenticate(&shared, token).await {
                                Ok(a) => author = Some(a),
                                Err(refused) => return refused,
                            }
                        }
                        fields.insert(name, b.to_vec());
                    }
                    Err(e) => {
                        return refuse(
                            StatusCode::PAYLOAD_TOO_LARGE,
                            format!(
                                "upload refused: {e} (an upload may weigh {} MiB)",
                                MAX_UPLOAD >> 20
                            ),
                        )
                    }
                }
            }
            Ok(None) => break,
            Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("not a form: {e}")),
        }
    }
    let Some(author) = author else {
        return refuse(StatusCode::FORBIDDEN, "no token: ask the organiser for one");
    };
    drop(_receiving);
    let text = |k: &str| {
        fields
            .get(k)
            .map(|v| String::from_utf8_lossy(v).trim().to_string())
            .unwrap_or_default()
    };
    let (name, command) = (text("name"), text("command"));
    let change = if text("change") == "update" {
        Change::Update
    } else {
        Change::Add
    };
    let archive = fields.remove("archive").unwrap_or_default();
    drop(fields);
    let shared2 = shared.clone();
    // The check runs to its end on its own thread even if the client goes away.
    let r = tokio::task::spawn_blocking(move || -> Result<String, (StatusCode, String)> {
        let site = &shared2.site;
        shared2
            .count_upload(&author)
            .map_err(|e| (StatusCode::TOO_MANY_REQUESTS, e))?;
        let submit = site
            .submit
            .as_ref()
            .map_err(|why| (StatusCode::SERVICE_UNAVAILABLE, why.clone()))?;
        let refused = |e: HillError| (status_of(e.kind()), e.to_string());
        service::check_name(&name).map_err(refused)?;
        // Refused before any work when the name is not theirs to use.
        let entrants = crate::store::open_read(&site.dir)
            .and_then(|store| store.entrants())
            .map_err(|e| refused(e.into()))?;
        let found = entrants.iter().find(|e| e.name == name);
        service::permit(Some(&author), change, &name, found).map_err(refused)?;
        if command.is_empty() {
            return Err((
                StatusCode::UNPROCESSABLE_ENTITY,
                "no command: say how to run the bot, such as python3 bot.py".into(),
            ));
        }
        if archive.is_empty() {
            return Err((
                StatusCode::UNPROCESSABLE_ENTITY,
                "no archive: upload the bot's folder as a tar, tar.gz or zip".into(),
            ));
        }
        let uploads = site.dir.join("uploads");
        std::fs::create_dir_all(&uploads)
            .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let mut id = [0u8; 8];
        getrandom::fill(&mut id).map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let folder = uploads.join(id.iter().map(|b| format!("{b:02x}")).collect::<String>());
        crate::upload::unpack(&archive, &folder, &site.limits).map_err(|e| {
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("archive refused: {e}"),
            )
        })?;
        drop(archive);
        let s = Submission {
            author: author.clone(),
            change,
            name,
            command,
            folder: folder.clone(),
        };
        // In line for the check: one at a time, for real.
        let ahead = shared2
            .waiting
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let queued = std::time::Instant::now();
        let r = {
            let _turn = shared2.checks.lock().unwrap_or_else(|p| p.into_inner());
            submit(&s)
        };
        shared2
            .waiting
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        let _ = std::fs::remove_dir_all(&folder);
        let waited = if ahead > 0 {
            format!(
                "checked after {ahead} upload{} ahead of it ({} s in line)\n",
                if ahead == 1 { "" } else { "s" },
                queued.elapsed().as_secs()
            )
        } else {
            String::new()
        };
        if r.as_ref().is_ok() || r.as_ref().is_err_and(|e| e.checked) {
            shared2.count_check(&author);
        }
        r.map(|report| waited.clone() + &report)
            .map_err(|e| (StatusCode::UNPROCESSABLE_ENTITY, waited + &e.why))
    })
    .await;
    match r {
        Ok(Ok(report)) => (StatusCode::OK, report).into_response(),
        Ok(Err((code, why))) => refuse(code, why),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// The most of a version's stderr logs `/api/entrant/{name}/log` sends.
const LOG_SENT: u64 = 4 << 20;

/// `GET /api/entrant/{name}/log`: what its current version's processes wrote
/// to stderr (each log file's end, at most 4 MiB in all), for its author and the
/// organiser only (their token in `Authorization: Bearer`).
async fn log(
    State(shared): State<Arc<Shared>>,
    UrlPath(name): UrlPath<String>,
    headers: axum::http::HeaderMap,
) -> Response {
    let Some(token) = bearer(&headers) else {
        return refuse(
            StatusCode::FORBIDDEN,
            "an entrant's stderr is for its author: send your token in Authorization: Bearer",
        );
    };
    let r = read(&shared, move |store, site| {
        let author = service::author_of(store, &token)?;
        let entrants = store.entrants()?;
        let Some(e) = entrants.iter().find(|e| e.name == name) else {
            return Err(HillError::NotFound(format!("no entrant {name:?}")));
        };
        if !service::owns(&author, e) {
            return Err(HillError::Forbidden(format!(
                "{name:?} is another author's entrant: its stderr is for its author"
            )));
        }
        // koth's own folder of this version's logs: files it wrote, read in
        // name order, each a slot's stderr.
        let dir = site.dir.join("logs").join(format!("v{}", e.version));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|f| f.file_type().is_ok_and(|t| t.is_file()))
            .map(|f| f.path())
            .collect();
        files.sort();
        let share = LOG_SENT / files.len().max(1) as u64;
        let mut text = String::new();
        for f in &files {
            use std::io::{Read, Seek, SeekFrom};
            let Ok(mut file) = std::fs::File::open(f) else {
                continue;
            };
            let len = file.metadata().map_or(0, |m| m.len());
            let from = len.saturating_sub(share);
            let mut buf = Vec::new();
            if file.seek(SeekFrom::Start(from)).is_ok() && file.read_to_end(&mut buf).is_ok() {
                let label = f.file_name().map(|n| n.to_string_lossy().into_owned());
                text += &format!("== {} ==\n", label.unwrap_or_default());
                if from > 0 {
                    text += &format!("[its last {} KiB]\n", share >> 10);
                }
                text += &String::from_utf8_lossy(&buf);
                text += "\n";
            }
        }
        Ok(scrub(&text, &site.dir))
    })
    .await;
    match r {
        Ok(text) => ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response(),
        Err(e) => e,
    }
}

/// `GET /api/checks`: how many uploads are waiting for their check or being
/// checked (one at a time).
async fn checks(State(shared): State<Arc<Shared>>) -> Response {
    json(
        serde_json::json!({
            "waiting": shared.waiting.load(std::sync::atomic::Ordering::SeqCst),
        })
        .to_string(),
    )
}

/// `POST /api/entrant/{name}/{pause|resume|remove}`, with `token` in a form: an
/// author may remove their own entrant; the rest needs the organiser's token.
async fn act(
    State(shared): State<Arc<Shared>>,
    UrlPath((name, action)): UrlPath<(String, String)>,
    axum::Form(form): axum::Form<std::collections::HashMap<String, String>>,
) -> Response {
    let change = match action.as_str() {
        "pause" => Change::Pause,
        "resume" => Change::Resume,
        "remove" => Change::Remove,
        _ => {
            return refuse(
                StatusCode::NOT_FOUND,
                "no such action: pause, resume or remove",
            )
        }
    };
    let token = form.get("token").cloned().unwrap_or_default();
    let r = tokio::task::spawn_blocking(move || -> Result<String, HillError> {
        let mut store = crate::store::open(&shared.site.dir)?;
        let author = service::author_of(store.as_ref(), &token)?;
        service::change(store.as_mut(), change, &name, None, Some(&author))?;
        Ok(format!("{name}: {}", change.name()))
    })
    .await;
    match r {
        Ok(Ok(text)) => (StatusCode::OK, text).into_response(),
        Ok(Err(e)) => refusal(&e),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// Head to head, in ranking order: `cells[i][j]` is the i-th entrant's mean
/// score in the games where it sat with the j-th, and how many.
pub fn head_to_head(board: &crate::Board) -> serde_json::Value {
    let s = &board.standings;
    let n = s.entrants.len();
    let order = s.ranking();
    let cells: Vec<Vec<serde_json::Value>> = order
        .iter()
        .map(|&a| {
            order
                .iter()
                .map(|&b| {
                    let p = &s.pair[a * n + b];
                    if a == b || p.n == 0 {
                        serde_json::Value::Null
                    } else {
                        serde_json::json!([p.mean(), p.n])
                    }
                })
                .collect()
        })
        .collect();
    let names: Vec<&str> = order.iter().map(|&e| s.entrants[e].name.as_str()).collect();
    serde_json::json!({ "names": names, "cells": cells })
}

/// A point of the standings' history: each ranked entrant's strength and interval.
pub fn history_point(board: &crate::Board) -> serde_json::Value {
    serde_json::json!(board
        .rows()
        .iter()
        .filter(|r| r.games > 0)
        .map(|r| serde_json::json!([r.name, r.strength, r.low, r.high, r.games]))
        .collect::<Vec<_>>())
}

async fn history(State(shared): State<Arc<Shared>>) -> Response {
    let r = read(&shared, |store, _| {
        let points = store.history(300)?;
        Ok(serde_json::json!(points
            .into_iter()
            .map(|(at, games, rows)| serde_json::json!({ "at": at, "games": games, "rows": rows }))
            .collect::<Vec<_>>()))
    })
    .await;
    match r {
        Ok(v) => json(v.to_string()),
        Err(e) => e,
    }
}

async fn rounds(State(shared): State<Arc<Shared>>) -> Response {
    let r = read(&shared, |store, _| Ok(serde_json::json!(store.rounds()?))).await;
    match r {
        Ok(v) => json(v.to_string()),
        Err(e) => e,
    }
}

/// A round's report, as `koth report` made it: the folder is the round's number,
/// never a path from the request.
async fn round_report(State(shared): State<Arc<Shared>>, UrlPath(n): UrlPath<u32>) -> Response {
    let path = shared
        .site
        .dir
        .join(ROUNDS)
        .join(n.to_string())
        .join("report.html");
    match tokio::fs::read(&path).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], bytes).into_response(),
        Err(_) => not_found(format!("no report of round {n}")),
    }
}

/// Where a hill keeps its rounds: one folder each, by number.
pub const ROUNDS: &str = "rounds";
