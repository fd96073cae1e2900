//! The hill's live page: the leaderboard pushed to every open page as games end
//! (server-sent events), an entrant's versions, results and recent games, and any
//! game step by step. The page ships inside the binary; whatever a bot wrote is
//! put on it as text, never as markup.

use crate::error::{HillError, Kind};
use crate::service;
use crate::store::{Author, Change, Store};
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
/// only), or why not; with its decision log, if the hill keeps one, cut to
/// what the viewer may see (each decision's time for all, stderr lines of the
/// viewer's seats only).
pub type GameView = Box<
    dyn Fn(
            &crate::StoredGame,
            Option<koth_arena::GameLog>,
            &[String],
        ) -> Result<serde_json::Value, String>
        + Send
        + Sync,
>;

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
    /// The proxies in front of the page whose `X-Forwarded-For` is believed
    /// (and that are held to no per-address cap); none by default.
    pub proxies: Vec<std::net::IpAddr>,
    /// What `/metrics` shows (the hill's player counts its games there too).
    pub metrics: Arc<crate::metrics::Metrics>,
}

/// The most an upload may weigh, packed.
pub const MAX_UPLOAD: usize = 16 << 20;

/// How long an upload may take to show its token (the form's first field),
/// before it takes a receiving place: a visitor without one holds none.
pub const TOKEN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long a connection may take to send a request's headers (the first one,
/// and each after the last answer): a visitor who opens one and says nothing
/// holds its place no longer.
pub const HEADER_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// [`HEADER_WAIT`] on a connection in the places kept for authors: an author
/// sends its request at once, and one who holds such a place idle frees it
/// soon.
pub const RESERVED_HEADER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long an author's upload may take over each field once it holds a
/// receiving place (16 MiB at 150 kB/s fits).
pub const BODY_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

pub(crate) const PAGE: &str = include_str!("page.html");
pub(crate) const PAGE_JS: &str = include_str!("page.js");
pub(crate) const PAGE_CSS: &str = include_str!("page.css");
/// The game viewer, shared by the hill's page and run reports (which inline it).
pub const VIEWER_JS: &str = include_str!("viewer/viewer.js");
/// The game viewer's style.
pub const VIEWER_CSS: &str = include_str!("viewer/viewer.css");

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
    let mut listener = crate::conn::Bounded::new(listener, server, site.proxies.clone());
    let connections = listener.open_count();
    let app = Router::new()
        .route("/", get(page))
        .route("/page.js", get(page_js))
        .route("/page.css", get(page_css))
        .route("/viewer.js", get(|| async { script(VIEWER_JS) }))
        .route("/viewer.css", get(|| async { style(VIEWER_CSS) }))
        .route("/rounds/{n}/report.html", get(round_report))
        .route("/metrics", get(metrics))
        .route("/api/contest", get(contest))
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
        .route("/api/entrant/{name}/games", get(games_of))
        .layer(axum::extract::DefaultBodyLimit::max(
            MAX_UPLOAD + (64 << 10),
        ));
    let shared = Arc::new(Shared {
        site,
        checks: Default::default(),
        waiting: Default::default(),
        streams: Arc::new(tokio::sync::Semaphore::new(server.streams)),
        bodies: Arc::new(tokio::sync::Semaphore::new(server.uploads)),
        recent: Default::default(),
        connections,
        clients: Default::default(),
    });
    let app = app
        .layer(axum::middleware::from_fn_with_state(shared.clone(), door))
        .with_state(shared);
    std::thread::Builder::new()
        .name("hill-web".into())
        .spawn(move || {
            rt.block_on(async move {
                loop {
                    let (conn, from) = listener.accept().await;
                    let peer = Peer {
                        addr: from,
                        reserved: conn.reserved(),
                    };
                    let app = app.clone();
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(
                            move |mut req: axum::http::Request<hyper::body::Incoming>| {
                                req.extensions_mut().insert(peer);
                                tower::Service::call(&mut app.clone(), req)
                            },
                        );
                        let _ = hyper::server::conn::http1::Builder::new()
                            .timer(hyper_util::rt::TokioTimer::new())
                            .header_read_timeout(if peer.reserved {
                                RESERVED_HEADER_WAIT
                            } else {
                                HEADER_WAIT
                            })
                            .serve_connection(hyper_util::rt::TokioIo::new(conn), service)
                            .await;
                    });
                }
            })
        })?;
    Ok(addr)
}

/// Where a request came from, as the page's accept loop saw it.
#[derive(Clone, Copy, Debug)]
struct Peer {
    addr: SocketAddr,
    /// Its connection holds one of the places kept for authors.
    reserved: bool,
}

/// The client behind a request: the peer, or, when the peer is a proxy the
/// organiser named, the nearest address in `X-Forwarded-For` that is not one
/// of them (the ones farther left are the client's to write).
fn client_of(
    peer: std::net::IpAddr,
    headers: &axum::http::HeaderMap,
    proxies: &[std::net::IpAddr],
) -> std::net::IpAddr {
    if !proxies.contains(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    for hop in hops.iter().rev() {
        match hop.trim().parse::<std::net::IpAddr>() {
            Ok(ip) if proxies.contains(&ip) => continue,
            Ok(ip) => return ip,
            // A hop the proxies did not write: stop at the last known one.
            Err(_) => break,
        }
    }
    peer
}

/// Requests being answered, by client: one client (behind a proxy, where the
/// connection cap cannot see it) has at most [`crate::conn::ServerLimits::per_address`].
#[derive(Default)]
struct Clients(std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>);

/// A request's place among its client's, given back when it is answered.
struct InFlight<'a>(&'a Clients, std::net::IpAddr);

impl Clients {
    fn take(&self, ip: std::net::IpAddr, most: usize) -> Option<InFlight<'_>> {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = m.entry(ip).or_default();
        if *n >= most {
            return None;
        }
        *n += 1;
        Some(InFlight(self, ip))
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let mut m = self.0 .0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.1) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.1);
            }
        }
    }
}

/// Every request passes here first: on a connection in the authors' places,
/// only a request with a known token is answered (the rest get 503 and the
/// connection is closed); a client past its share of requests gets 503.
async fn door(
    State(shared): State<Arc<Shared>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let Some(peer) = req.extensions().get::<Peer>().copied() else {
        return next.run(req).await;
    };
    if peer.reserved {
        let known = match bearer(req.headers()) {
            Some(t) => authenticate(&shared, t).await.is_ok(),
            None => false,
        };
        if !known {
            let mut r = busy(
                "the page is full: the last places are kept for authors (send your token in Authorization: Bearer), or try again in a moment",
            );
            r.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            return r;
        }
    }
    let client = client_of(peer.addr.ip(), req.headers(), &shared.site.proxies);
    let Some(_in_flight) = shared.clients.take(client, shared.site.server.per_address) else {
        return busy("too many requests at once from your address: try again in a moment");
    };
    next.run(req).await
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
    script(PAGE_JS)
}

async fn page_css() -> Response {
    style(PAGE_CSS)
}

fn script(text: &'static str) -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        text,
    )
        .into_response()
}

fn style(text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], text).into_response()
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
    later(StatusCode::SERVICE_UNAVAILABLE, why, 30)
}

/// A refusal that says, in `Retry-After` and in its body, in how many
/// seconds to ask again.
fn later(code: StatusCode, why: &str, seconds: u64) -> Response {
    let mut r = refuse_with(code, why, serde_json::json!({ "retry_after_s": seconds }));
    if let Ok(v) = header::HeaderValue::from_str(&seconds.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

fn not_found(what: String) -> Response {
    refuse(StatusCode::NOT_FOUND, what)
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
        Kind::Unauthorized => StatusCode::UNAUTHORIZED,
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
    crate::folders::scrub(text, &crate::folders::own_paths(dir)).into_owned()
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

/// Games of an entrant's page: its latest this many are listed...
const RECENT_SHOWN: usize = 30;
/// ...and its forfeits are looked for in its latest this many,
const FORFEITS_SCANNED: usize = 1000;
/// at most this many shown.
const FORFEITS_SHOWN: usize = 100;

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
        let viewer = match &token {
            Some(t) => service::author_of(store, t).ok(),
            None => None,
        };
        entrant_json(store, &site.dir, &name, viewer.as_ref())
    })
    .await;
    match r {
        Ok(v) => json(v.to_string()),
        Err(e) => e,
    }
}

/// An entrant's page as JSON (`GET /api/entrant/{name}`), for `viewer` (who
/// sees its stderr if it is theirs; `None`: the public).
pub fn entrant_json(
    store: &dyn Store,
    dir: &std::path::Path,
    name: &str,
    viewer: Option<&Author>,
) -> Result<serde_json::Value, HillError> {
    // Read once: every recent game's seats are named from them.
    let seats = crate::export::Seats::of(store)?;
    let Some(e) = seats.entrants.iter().find(|e| e.name == name) else {
        return Err(HillError::NotFound(format!("no entrant {name:?}")));
    };

    let own = viewer.as_ref().is_some_and(|a| service::owns(a, e));
    let versions: Vec<_> = seats
        .versions_of(e.id)
        .cloned()
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
    let latest = store.recent_games(e.version, FORFEITS_SCANNED)?;
    let scanned = latest.len();
    for (k, g) in latest.into_iter().enumerate() {
        // Only a game with a forfeit, or one listed, is read whole.
        if k >= RECENT_SHOWN && !g.record.contains("\"forfeits\"") {
            continue;
        }
        let rec: serde_json::Value = serde_json::from_str(&g.record).unwrap_or_default();
        let seat_of_mine = g.seats.iter().position(|v| *v == e.version);
        for f in rec["forfeits"].as_array().into_iter().flatten() {
            if f["seat"].as_u64().map(|s| s as usize) == seat_of_mine
                && forfeits.len() < FORFEITS_SHOWN
            {
                let reason = scrub(f["fault"]["reason"].as_str().unwrap_or_default(), dir);
                let mut item = serde_json::json!({
                    "block": g.block, "index": g.index, "reason": reason,
                });
                if own {
                    item["stderr"] = f["fault"]["stderr_tail"].clone();
                }
                forfeits.push(item);
            }
        }
        if k < RECENT_SHOWN {
            let names = seats.names(&g.seats);
            recent.push(serde_json::json!({
                "block": g.block, "index": g.index, "seats": names,
                "scores": rec["scores"], "winners": rec["outcome"]["winners"],
            }));
        }
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
    let current = kept.get(&e.version).copied().unwrap_or_default();
    // A new version first plays this many games against the field.
    let want = store.settings()?.candidate_games;
    Ok(serde_json::json!({
        "name": e.name, "status": e.status, "version": e.version,
        "author": e.owner,
        "versions": versions, "events": events, "recent": recent, "forfeits": forfeits,
        "results": results, "stderr_shown": own,
        // How many of its latest games the forfeits were looked for in.
        "scanned": scanned,
        // Its current version's games and forfeits in all, whoever it met.
        "games": current.games, "forfeits_in_all": current.forfeits,
        // A new version first plays this many games against the field.
        "candidate": (current.games < want).then(|| serde_json::json!({
            "games": current.games, "of": want,
        })),
    }))
}

/// `GET /api/game/{block}/{index}`: a game step by step and its record; what
/// its programs wrote to stderr only for the organiser and, of its own
/// seats, for an entrant's author (token in `Authorization: Bearer`), the
/// reasons of its faults for all.
async fn game(
    State(shared): State<Arc<Shared>>,
    UrlPath((block, index)): UrlPath<(i64, u64)>,
    headers: axum::http::HeaderMap,
) -> Response {
    let token = bearer(&headers);
    let r = read(&shared, move |store, site| {
        let viewer = token
            .as_ref()
            .and_then(|t| service::author_of(store, t).ok());
        game_json(store, site.view.as_ref(), block, index, viewer.as_ref())
    })
    .await;
    match r {
        Ok(v) => json(v.to_string()),
        Err(e) => e,
    }
}

/// A game as JSON (`GET /api/game/{block}/{index}`): its steps as `view`
/// draws them and its record, for `viewer` (the organiser sees every seat's
/// stderr, an author its own seats'; `None`: the public, none).
pub fn game_json(
    store: &dyn Store,
    view: Option<&GameView>,
    block: i64,
    index: u64,
    viewer: Option<&Author>,
) -> Result<serde_json::Value, HillError> {
    let organiser = viewer.as_ref().is_some_and(|a| a.admin);
    let Some(g) = store.game(block, index)? else {
        return Err(HillError::NotFound(format!(
            "no game {index} in block {block}"
        )));
    };
    let seats = crate::export::Seats::of(store)?;
    let names = seats.names(&g.seats);
    // The seats whose entrant is the viewer's own.
    let mine: Vec<bool> = g
        .seats
        .iter()
        .map(|&v| matches!((&viewer, seats.entrant_of(v)), (Some(a), Some(e)) if service::owns(a, e)))
        .collect();
    // Each decision's time is for all (the game is over; every seat's cards
    // are shown anyway); what a program wrote, for its author and the organiser.
    let log = store.game_log(block, index)?.map(|mut log| {
        log.lines
            .retain(|n| organiser || mine.get(n.seat) == Some(&true));
        log
    });
    let mut steps = match &view {
        Some(view) => view(&g, log, &names).unwrap_or_else(|e| serde_json::json!({ "error": e })),
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
        // An author keeps what its own seats' programs wrote.
        let kept: Vec<(usize, serde_json::Value)> = out["record"]["forfeits"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, f)| {
                f["seat"]
                    .as_u64()
                    .is_some_and(|s| mine.get(s as usize) == Some(&true))
            })
            .map(|(i, f)| (i, f["fault"]["stderr_tail"].clone()))
            .collect();
        strip_stderr(&mut out);
        for (i, tail) in kept {
            if !tail.is_null() {
                out["record"]["forfeits"][i]["fault"]["stderr_tail"] = tail;
            }
        }
    }
    out["stderr_seats"] = serde_json::json!(mine
        .iter()
        .enumerate()
        .filter(|(_, m)| organiser || **m)
        .map(|(i, _)| i)
        .collect::<Vec<_>>());
    Ok(out)
}

/// The leaderboard's rows as JSON, each with `why`: what its ✓ rests on, in
/// words ([`crate::Row::why`]).
pub fn rows_json(board: &crate::Board) -> serde_json::Value {
    serde_json::Value::Array(
        board
            .rows()
            .into_iter()
            .map(|r| {
                let why = r.why();
                let mut v = serde_json::to_value(r).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("why".into(), why.into());
                }
                v
            })
            .collect(),
    )
}

/// The board as the page reads it: the hill's facts and the leaderboard.
pub fn board_json(settings: &crate::Settings, board: &crate::Board, stored: u64) -> String {
    serde_json::json!({
        "game": settings.game,
        "rules": settings.rules_name,
        "table": settings.table,
        // A version with fewer games is a candidate, still meeting the field.
        "candidate_games": settings.candidate_games,
        "games": stored,
        "counted": board.games,
        "rows": rows_json(board),
        // A ✓ needs this many deals of each neighbour ([`crate::MIN_SETTLED_DEALS`]).
        "min_settled_deals": crate::MIN_SETTLED_DEALS,
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
    /// How many connections are open.
    connections: crate::conn::OpenCount,
    /// Requests being answered, by client.
    clients: Clients,
}

/// When an author's recent checks and uploads were (in that order).
type Sent = (Vec<std::time::Instant>, Vec<std::time::Instant>);

/// Checks an author's uploads may cost in [`UPLOAD_WINDOW`] (a check costs the
/// machine seconds); an upload refused before its check is not counted here.
/// The organiser's token is not counted.
pub const CHECKS_PER_WINDOW: usize = 10;
/// Uploads an author may have unpacked in [`UPLOAD_WINDOW`], whatever their
/// check says (each is unpacked on the hill's disk); one refused before (a
/// name, a token, the dates, no command) is not counted.
pub const UPLOADS_PER_WINDOW: usize = 60;
/// See [`CHECKS_PER_WINDOW`].
pub const UPLOAD_WINDOW: std::time::Duration = std::time::Duration::from_secs(600);

impl Shared {
    /// Counts an upload of `author`'s, or says why not and in how many
    /// seconds they may send the next: at most [`UPLOADS_PER_WINDOW`] uploads
    /// and [`CHECKS_PER_WINDOW`] checks.
    fn count_upload(&self, author: &Author) -> Result<(), (String, u64)> {
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
                let wait = wait.as_secs() + 1;
                (
                    format!(
                        "too many {what}: {most} in the last {} minutes; the next in {wait} s",
                        UPLOAD_WINDOW.as_secs() / 60
                    ),
                    wait,
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

/// Every refusal of the API: JSON `{"error": WHY, "status": CODE}` with
/// the status, and `WWW-Authenticate` on a 401.
fn refuse(code: StatusCode, why: impl Into<String>) -> Response {
    refuse_with(code, &why.into(), serde_json::json!({}))
}

/// [`refuse`] with more fields in the body (`limit_bytes`, `retry_after_s`).
fn refuse_with(code: StatusCode, why: &str, more: serde_json::Value) -> Response {
    let mut body = serde_json::json!({ "error": why, "status": code.as_u16() });
    if let (Some(b), Some(m)) = (body.as_object_mut(), more.as_object()) {
        b.extend(m.clone());
    }
    tracing::info!(status = code.as_u16(), error = why, "refused");
    let mut r = (
        code,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response();
    if code == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
    }
    r
}

/// `GET /metrics`: the hill's counts in the OpenMetrics text format.
async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let m = &shared.site.metrics;
    m.connections.set(shared.connections.get() as i64);
    m.checks_waiting
        .set(shared.waiting.load(std::sync::atomic::Ordering::SeqCst) as i64);
    m.live_pages.set(
        shared
            .site
            .server
            .streams
            .saturating_sub(shared.streams.available_permits()) as i64,
    );
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        m.text(),
    )
        .into_response()
}

/// `GET /api/contest`: the contest's title, texts (as cleaned HTML), dates,
/// phase, announcements and final round.
async fn contest(State(shared): State<Arc<Shared>>) -> Response {
    let r = read(&shared, |store, _| {
        Ok(crate::contest::page_json(
            &store.contest()?,
            &store.announcements()?,
            &store.rounds()?,
            crate::store::now(),
        ))
    })
    .await;
    match r {
        Ok(v) => json(v.to_string()),
        Err(e) => e,
    }
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

/// The answer to a request that is not the form an upload is.
const NOT_A_FORM: &str = "send the upload as multipart/form-data with the fields token (or the header Authorization: Bearer TOKEN), name, command, change (add or update) and archive, in that order";

/// `POST /api/submit`: a multipart form with `token`, `name`, `command`,
/// `change` (`add` or `update`) and `archive` (a tar, tar.gz or zip of the bot's
/// folder), the token before the archive (or in `Authorization: Bearer`): no
/// byte of an archive is kept before its token is known. Answers the check's
/// report: 200 when the bot entered; refusals as JSON (`error`, `status`):
/// 401 for no token or one not known, 403 for someone else's entrant or an
/// upload outside the contest's dates, 413 for an upload over
/// [`MAX_UPLOAD`] (with `limit_bytes`), 415 for a request that is no form,
/// 422 for an archive or a bot refused (`error` holds the check's report),
/// 429 past an author's limits and 503 when uploads are already being
/// received (both with `Retry-After`).
async fn submit(
    State(shared): State<Arc<Shared>>,
    headers: axum::http::HeaderMap,
    form: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    let Ok(mut form) = form else {
        shared.site.metrics.upload("rejected");
        return refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, NOT_A_FORM);
    };
    let rejected = |r: Response| {
        shared.site.metrics.upload("rejected");
        r
    };
    // Who sends it is known before it takes one of the few receiving places:
    // a token in `Authorization`, or the form's first field, read within
    // TOKEN_WAIT. A visitor without a token (or one that sends it a byte at a
    // time) holds no place, however long it stays.
    let mut author = None;
    if let Some(token) = bearer(&headers) {
        match authenticate(&shared, token).await {
            Ok(a) => author = Some(a),
            Err(refused) => return rejected(refused),
        }
    }
    let mut fields: std::collections::HashMap<String, Vec<u8>> = Default::default();
    if author.is_none() {
        let first = tokio::time::timeout(TOKEN_WAIT, async {
            let f = form.next_field().await.ok().flatten()?;
            if f.name() != Some("token") {
                return None;
            }
            f.bytes().await.ok()
        })
        .await;
        let Ok(Some(token)) = first else {
            return rejected(refuse(
                StatusCode::UNAUTHORIZED,
                format!(
                    "no token within {} s: send the token first (the form's first field, or in Authorization: Bearer)",
                    TOKEN_WAIT.as_secs()
                ),
            ));
        };
        match authenticate(&shared, String::from_utf8_lossy(&token).trim().to_string()).await {
            Ok(a) => author = Some(a),
            Err(refused) => return rejected(refused),
        }
        fields.insert("token".into(), token.to_vec());
    }
    let Ok(_receiving) = shared.bodies.clone().try_acquire_owned() else {
        shared.site.metrics.upload("throttled");
        return busy("the hill is receiving other uploads: send it again in a moment");
    };
    loop {
        // The rest of the form within BODY_WAIT a field: an author who
        // stalls gives its place back.
        let next = match tokio::time::timeout(BODY_WAIT, form.next_field()).await {
            Ok(n) => n,
            Err(_) => {
                return rejected(refuse(
                    StatusCode::REQUEST_TIMEOUT,
                    format!("the upload stalled: no field for {} s", BODY_WAIT.as_secs()),
                ))
            }
        };
        match next {
            Ok(Some(f)) => {
                let name = f.name().unwrap_or_default().to_string();
                let read = match tokio::time::timeout(BODY_WAIT, f.bytes()).await {
                    Ok(r) => r,
                    Err(_) => {
                        return rejected(refuse(
                            StatusCode::REQUEST_TIMEOUT,
                            format!(
                                "the upload stalled: field {name:?} not read within {} s",
                                BODY_WAIT.as_secs()
                            ),
                        ))
                    }
                };
                match read {
                    Ok(b) => {
                        fields.insert(name, b.to_vec());
                    }
                    Err(e) => {
                        return rejected(refuse_with(
                            StatusCode::PAYLOAD_TOO_LARGE,
                            &format!(
                                "upload refused: {} (an upload may weigh {} MiB)",
                                e.body_text(),
                                MAX_UPLOAD >> 20
                            ),
                            serde_json::json!({ "limit_bytes": MAX_UPLOAD }),
                        ))
                    }
                }
            }
            Ok(None) => break,
            Err(e) => {
                return rejected(refuse(
                    StatusCode::BAD_REQUEST,
                    format!("not a form: {}; {NOT_A_FORM}", e.body_text()),
                ))
            }
        }
    }
    let Some(author) = author else {
        return rejected(refuse(
            StatusCode::UNAUTHORIZED,
            "no token: ask the organiser for one",
        ));
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
    let who = author.name.clone();
    let what = name.clone();
    tracing::info!(author = %who, entrant = %what, change = %change, bytes = archive.len(), "upload received");
    // The check runs to its end on its own thread even if the client goes away.
    let r = tokio::task::spawn_blocking(move || -> Result<String, Refusal> {
        let site = &shared2.site;
        let submit = site
            .submit
            .as_ref()
            .map_err(|why| Refusal::before(StatusCode::SERVICE_UNAVAILABLE, why.clone()))?;
        let refused = |e: HillError| Refusal::before(status_of(e.kind()), e.to_string());
        service::check_name(&name).map_err(refused)?;
        // Refused before any work when the name is not theirs to use, or
        // the contest takes no uploads now.
        let store = crate::store::open_read(&site.dir).map_err(|e| refused(e.into()))?;
        service::uploads_open(store.as_ref(), Some(&author), crate::store::now())
            .map_err(refused)?;
        let entrants = store.entrants().map_err(|e| refused(e.into()))?;
        drop(store);
        let found = entrants.iter().find(|e| e.name == name);
        service::permit(Some(&author), change, &name, found).map_err(refused)?;
        if command.is_empty() {
            return Err(Refusal::before(
                StatusCode::UNPROCESSABLE_ENTITY,
                "no command: say how to run the bot, such as python3 bot.py".into(),
            ));
        }
        if archive.is_empty() {
            return Err(Refusal::before(
                StatusCode::UNPROCESSABLE_ENTITY,
                "no archive: upload the bot's folder as a tar, tar.gz or zip".into(),
            ));
        }
        // Counted from here on: what follows costs the hill's disk and cores.
        shared2
            .count_upload(&author)
            .map_err(|(why, wait)| Refusal {
                code: StatusCode::TOO_MANY_REQUESTS,
                why,
                retry_after: Some(wait),
                checked: false,
            })?;
        let failed = |e: String| Refusal::before(StatusCode::INTERNAL_SERVER_ERROR, e);
        let uploads = site.dir.join("uploads");
        std::fs::create_dir_all(&uploads).map_err(|e| failed(e.to_string()))?;
        let mut id = [0u8; 8];
        getrandom::fill(&mut id).map_err(|e| failed(e.to_string()))?;
        let folder = uploads.join(id.iter().map(|b| format!("{b:02x}")).collect::<String>());
        crate::upload::unpack(&archive, &folder, &site.limits).map_err(|e| {
            Refusal::before(
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
            .map_err(|e| Refusal {
                code: StatusCode::UNPROCESSABLE_ENTITY,
                why: waited + &e.why,
                retry_after: None,
                checked: e.checked,
            })
    })
    .await;
    let m = &shared.site.metrics;
    match r {
        Ok(Ok(report)) => {
            m.upload("entered");
            tracing::info!(author = %who, entrant = %what, "upload entered");
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                report,
            )
                .into_response()
        }
        Ok(Err(e)) => {
            let outcome = if e.checked {
                "refused"
            } else if e.code == StatusCode::TOO_MANY_REQUESTS {
                "throttled"
            } else {
                "rejected"
            };
            m.upload(outcome);
            tracing::info!(author = %who, entrant = %what, outcome, status = e.code.as_u16(), "upload not entered");
            match e.retry_after {
                Some(s) => later(e.code, &e.why, s),
                None => refuse(e.code, e.why),
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "an upload's check failed to run");
            refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
        }
    }
}

/// Why an upload was not entered, with its status.
struct Refusal {
    code: StatusCode,
    why: String,
    /// Seconds before another upload will be taken, if that is why.
    retry_after: Option<u64>,
    /// A check was run for it.
    checked: bool,
}

impl Refusal {
    /// Refused before any check.
    fn before(code: StatusCode, why: String) -> Refusal {
        Refusal {
            code,
            why,
            retry_after: None,
            checked: false,
        }
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
            StatusCode::UNAUTHORIZED,
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

/// `POST /api/entrant/{name}/{pause|resume|remove}`, with the token in
/// `Authorization: Bearer` or a form field `token`: an author may remove
/// their own entrant; the rest needs the organiser's token.
async fn act(
    State(shared): State<Arc<Shared>>,
    UrlPath((name, action)): UrlPath<(String, String)>,
    headers: axum::http::HeaderMap,
    form: Result<
        axum::Form<std::collections::HashMap<String, String>>,
        axum::extract::rejection::FormRejection,
    >,
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
    let token = match (bearer(&headers), form) {
        (Some(t), _) => t,
        (None, Ok(axum::Form(f))) => f.get("token").cloned().unwrap_or_default(),
        (None, Err(_)) => {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "no token: send it in Authorization: Bearer, or as the field token of a form (application/x-www-form-urlencoded)",
            )
        }
    };
    let r = tokio::task::spawn_blocking(move || -> Result<String, HillError> {
        let mut store = crate::store::open(&shared.site.dir)?;
        let author = service::author_of(store.as_ref(), &token)?;
        service::change(store.as_mut(), change, &name, None, Some(&author))?;
        tracing::info!(author = %author.name, entrant = %name, change = %change, "entrant changed from the page");
        Ok(format!("{name}: {}", change.name()))
    })
    .await;
    match r {
        Ok(Ok(text)) => (StatusCode::OK, text).into_response(),
        Ok(Err(e)) => refusal(&e),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// The most lines `/api/entrant/{name}/games` sends (its latest games).
pub const GAMES_SENT: usize = 20_000;

/// `GET /api/entrant/{name}/games`: the latest [`GAMES_SENT`] games any
/// version of the entrant played, as JSON lines (as `koth hill games`
/// writes them); what programs wrote to stderr only for its author and the
/// organiser.
async fn games_of(
    State(shared): State<Arc<Shared>>,
    UrlPath(name): UrlPath<String>,
    headers: axum::http::HeaderMap,
) -> Response {
    let token = bearer(&headers);
    let r = read(&shared, move |store, _| {
        let seats = crate::export::Seats::of(store)?;
        let e = seats.entrant(&name)?;
        let own = match &token {
            Some(t) => service::owns(&service::author_of(store, t)?, e),
            None => false,
        };
        // Each version's newest games (only the batches of its blocks are
        // read), then the newest of them all, oldest first.
        let mut games = Vec::new();
        for v in seats.versions_of(e.id) {
            games.extend(store.recent_games(v.id, GAMES_SENT)?);
        }
        games.sort_by_key(|g| std::cmp::Reverse((g.block, g.index)));
        games.truncate(GAMES_SENT);
        games.reverse();
        let mut lines = Vec::with_capacity(games.len());
        for g in &games {
            let record = if own {
                g.record.clone()
            } else {
                let mut v: serde_json::Value = serde_json::from_str(&g.record).unwrap_or_default();
                strip_stderr(&mut v);
                v.to_string()
            };
            let line = serde_json::value::RawValue::from_string(record)
                .map_err(|e| e.to_string())
                .and_then(|raw| {
                    serde_json::to_string(&seats.line(g, &raw)).map_err(|e| e.to_string())
                })
                .map_err(|err| {
                    HillError::Invalid(format!(
                        "game {} of block {}: unreadable record: {err}",
                        g.index, g.block
                    ))
                })?;
            lines.push(line);
        }
        let mut out = String::new();
        for l in lines {
            out += &l;
            out.push('\n');
        }
        Ok(out)
    })
    .await;
    match r {
        Ok(text) => (
            [
                (header::CONTENT_TYPE, "application/x-ndjson"),
                (header::CONTENT_DISPOSITION, "attachment"),
            ],
            text,
        )
            .into_response(),
        Err(e) => e,
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

/// `GET /api/history`: the standings over time (at most 300 points: when,
/// games stored, each ranked entrant's `[name, strength, low, high, games]`)
/// and the changes of the field, for the chart's marks.
/// The standings over time as JSON (`GET /api/history`).
pub fn history_json(store: &dyn Store) -> Result<serde_json::Value, HillError> {
    let points = store.history(300)?;
    let events = store.events(0)?;
    Ok(serde_json::json!({
        "points": points
            .into_iter()
            .map(|(at, games, rows)| serde_json::json!({ "at": at, "games": games, "rows": rows }))
            .collect::<Vec<_>>(),
        "events": events
            .iter()
            .map(|e| serde_json::json!({ "at": e.at, "kind": e.kind, "entrant": e.entrant }))
            .collect::<Vec<_>>(),
    }))
}

async fn history(State(shared): State<Arc<Shared>>) -> Response {
    let r = read(&shared, |store, _| history_json(store)).await;
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

pub use crate::folders::ROUNDS;

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &[&str]) -> axum::http::HeaderMap {
        let mut h = axum::http::HeaderMap::new();
        for v in xff {
            h.append("x-forwarded-for", v.parse().unwrap());
        }
        h
    }

    #[test]
    fn the_client_is_the_nearest_hop_a_named_proxy_wrote() {
        let proxy: std::net::IpAddr = "10.0.0.1".parse().unwrap();
        let inner: std::net::IpAddr = "10.0.0.2".parse().unwrap();
        let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
        let proxies = [proxy, inner];
        // A peer that is not a named proxy is the client, whatever it says.
        let other = ip("192.0.2.5");
        assert_eq!(
            client_of(other, &headers(&["203.0.113.9"]), &proxies),
            other
        );
        // Behind the proxy: the rightmost hop not a proxy; what the client
        // wrote to its left is not believed.
        assert_eq!(
            client_of(proxy, &headers(&["1.2.3.4, 203.0.113.9"]), &proxies),
            ip("203.0.113.9")
        );
        assert_eq!(
            client_of(
                proxy,
                &headers(&["1.2.3.4", "203.0.113.9, 10.0.0.2"]),
                &proxies
            ),
            ip("203.0.113.9")
        );
        // No header, or garbage nearest: the proxy itself.
        assert_eq!(client_of(proxy, &headers(&[]), &proxies), proxy);
        assert_eq!(
            client_of(proxy, &headers(&["203.0.113.9, junk"]), &proxies),
            proxy
        );
    }

    #[test]
    fn a_clients_requests_are_counted_and_given_back() {
        let c = Clients::default();
        let a: std::net::IpAddr = "192.0.2.1".parse().unwrap();
        let b: std::net::IpAddr = "192.0.2.2".parse().unwrap();
        let one = c.take(a, 2).unwrap();
        let _two = c.take(a, 2).unwrap();
        assert!(c.take(a, 2).is_none());
        assert!(c.take(b, 2).is_some());
        drop(one);
        assert!(c.take(a, 2).is_some());
    }
}
