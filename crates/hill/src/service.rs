//! The hill's rules, each in one place: who may change what, what a name may
//! be, how tokens are made and kept, what an author may enter. The hill, the
//! page and the command line ask here; the store only keeps what they decided.

use crate::error::HillError;
use crate::store::{Author, Change, Entrant, Event, Status, Store};

/// A result of the rules.
pub type Result<T, E = HillError> = std::result::Result<T, E>;

/// Whether `by` may make `change` to `name`, whose entrant (if the hill has
/// one by that name) is `found`. The organiser (`by` is `None`, at the
/// command line, or an organiser's token) may do everything; an author's token
/// adds entrants and updates or removes its own; pausing and resuming are the
/// organiser's.
pub fn permit(
    by: Option<&Author>,
    change: Change,
    name: &str,
    found: Option<&Entrant>,
) -> Result<()> {
    let Some(author) = by.filter(|a| !a.admin) else {
        return Ok(());
    };
    let theirs = found.is_none_or(|e| owns(author, e));
    let allowed = match change {
        Change::Add | Change::Update | Change::Remove => theirs,
        Change::Pause | Change::Resume => false,
    };
    if allowed {
        return Ok(());
    }
    Err(HillError::Forbidden(if theirs {
        format!(
            "only the organiser's token may {} an entrant ({name:?} is yours, and stays as it is)",
            change.name()
        )
    } else {
        format!(
            "{name:?} is another author's entrant: only its author (or the organiser) may {} it",
            change.name()
        )
    }))
}

/// Whether an upload of `by`'s may enter now, by the contest's dates: the
/// organiser's always; an author's between the start and the deadline.
pub fn uploads_open(store: &dyn Store, by: Option<&Author>, now: i64) -> Result<()> {
    if by.is_none_or(|a| a.admin) {
        return Ok(());
    }
    let contest = store.contest()?;
    match contest.phase(now) {
        crate::store::Phase::Open => Ok(()),
        _ => Err(HillError::Forbidden(format!(
            "no uploads now: {}",
            crate::contest::phase_words(&contest, now)
        ))),
    }
}

/// Whether `author` entered `entrant` from the page, or is the organiser:
/// who may read its stderr and remove it.
pub fn owns(author: &Author, entrant: &Entrant) -> bool {
    author.admin || entrant.owner.as_deref() == Some(author.name.as_str())
}

/// Makes `change` to `name` for `by` if the rules allow it (see [`permit`]):
/// the one way a change reaches the store.
pub fn change(
    store: &mut dyn Store,
    change: Change,
    name: &str,
    spec: Option<serde_json::Value>,
    by: Option<&Author>,
) -> Result<Event> {
    if by.is_some_and(|a| !a.admin) {
        let entrants = store.entrants()?;
        permit(by, change, name, entrants.iter().find(|e| e.name == name))?;
        // After the deadline the field is the organiser's alone: an author
        // with the standings in view would otherwise pick who stays.
        frozen_for(store, by, change, crate::store::now())?;
    }
    let organiser_after_deadline = by.is_none_or(|a| a.admin)
        && store.contest()?.phase(crate::store::now()) >= crate::store::Phase::Frozen;
    let event = store.change(change, name, spec, by)?;
    if organiser_after_deadline {
        // Every change after the deadline is the organiser's, and said so on
        // the page.
        let words = format!(
            "After the deadline, the organiser {} {name:?}.",
            match change {
                Change::Add => "entered",
                Change::Update => "updated",
                Change::Remove => "removed",
                Change::Pause => "paused",
                Change::Resume => "resumed",
            }
        );
        store.announce(&words)?;
    }
    Ok(event)
}

/// Refuses an author's `change` once the contest is past its deadline: then
/// no author adds, updates, removes, pauses or resumes anything.
fn frozen_for(store: &dyn Store, by: Option<&Author>, change: Change, now: i64) -> Result<()> {
    if by.is_none_or(|a| a.admin) {
        return Ok(());
    }
    let contest = store.contest()?;
    if contest.phase(now) >= crate::store::Phase::Frozen {
        return Err(HillError::Forbidden(format!(
            "the field is frozen: {}; no author may {} an entrant now",
            crate::contest::phase_words(&contest, now),
            change.name()
        )));
    }
    Ok(())
}

/// Whether `by` may enter `spec` as `name`: a name of the right form, and for
/// an author neither a name that passes for another entrant's nor an exact
/// copy of another author's current version. Asked before an upload's check
/// too, so that a refusal costs no check.
pub fn may_enter(
    store: &dyn Store,
    name: &str,
    spec: &serde_json::Value,
    by: Option<&Author>,
) -> Result<()> {
    check_name(name)?;
    let Some(author) = by.filter(|a| !a.admin) else {
        return Ok(());
    };
    uploads_open(store, by, crate::store::now())?;
    let entrants = store.entrants()?;
    // One author, one entrant (unless the organiser allows more): feeders
    // that never attack their author's main bot would lift it.
    let theirs: Vec<&str> = entrants
        .iter()
        .filter(|e| e.status != Status::Removed && e.owner.as_deref() == Some(author.name.as_str()))
        .map(|e| e.name.as_str())
        .collect();
    let limit = store.contest()?.per_author() as usize;
    if !theirs.contains(&name) && theirs.len() >= limit {
        return Err(HillError::Forbidden(format!(
            "an author may have {limit} entrant{} in the field, and yours {} {}\n  fix: update {} instead (koth hill update, or change \"update\" in the form), or remove it first",
            if limit == 1 { "" } else { "s" },
            if theirs.len() == 1 { "is" } else { "are" },
            theirs.join(", "),
            theirs[0]
        )));
    }
    if let Some(other) = entrants
        .iter()
        .find(|e| e.name != name && look_alike(&e.name, name))
    {
        return Err(HillError::Conflict(format!(
            "{name:?} looks too much like {:?}, an entrant of the hill\n  fix: choose a name that is plainly your own",
            other.name
        )));
    }
    if let Some(folder) = spec.get("folder").and_then(|f| f.as_str()) {
        let versions = store.versions()?;
        let copied = entrants.iter().find(|e| {
            e.status != Status::Removed
                && e.owner.as_deref() != Some(author.name.as_str())
                && versions.iter().any(|v| {
                    v.id == e.version
                        && v.spec.get("folder").and_then(|f| f.as_str()) == Some(folder)
                })
        });
        if copied.is_some() {
            // Whose, it does not say: that would tell anyone who runs a public
            // bot unchanged, and under which name.
            return Err(HillError::Conflict(
                "this upload is an exact copy of another author's current version\n  fix: enter a bot of your own".into(),
            ));
        }
    }
    Ok(())
}

/// Makes a token called `name` (an organiser's with `admin`) and gives it,
/// once: only its hash is kept.
pub fn add_token(store: &mut dyn Store, name: &str, admin: bool) -> Result<String> {
    check_name(name)?;
    let token = new_token()?;
    store.add_token(name, &token_hash(&token), admin)?;
    Ok(token)
}

/// 192 random bits, in hex.
fn new_token() -> Result<String> {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes)
        .map_err(|e| HillError::Io(format!("no randomness for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Makes the token of a worker called `name` (a machine that plays the
/// hill's leases) and gives it, once: only its hash is kept.
pub fn add_worker(store: &mut dyn Store, name: &str) -> Result<String> {
    check_name(name)?;
    let token = new_token()?;
    store.add_worker(name, &token_hash(&token))?;
    Ok(token)
}

/// The worker whose `token` this is, or a refusal that says only that it is
/// not one (unknown, or revoked).
pub fn worker_of(store: &dyn Store, token: &str) -> Result<String> {
    store.worker(&token_hash(token))?.ok_or_else(|| {
        HillError::Unauthorized(
            "this worker's token is unknown or revoked: the hill refuses it\n  fix: ask the organiser for a token (koth hill worker add DIR NAME)".into(),
        )
    })
}

/// Whose `token` is, or a refusal that says only that it is not one.
pub fn author_of(store: &dyn Store, token: &str) -> Result<Author> {
    if token.trim().is_empty() {
        return Err(HillError::Unauthorized(
            "no token: ask the organiser for one".into(),
        ));
    }
    store.author(&token_hash(token))?.ok_or_else(|| {
        HillError::Unauthorized("unknown token: check it, or ask the organiser for one".into())
    })
}

/// How a token is kept: its BLAKE3 hash (tokens are 192 random bits, so a
/// fast hash is enough).
pub fn token_hash(token: &str) -> String {
    blake3::hash(token.trim().as_bytes()).to_hex().to_string()
}

/// An entrant's name: what a page, a file name and a terminal can all show.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(HillError::Invalid(format!(
            "{name:?} cannot name an entrant\n  fix: use up to 40 letters, digits, '-', '_' or '.', not starting with '.'"
        )))
    }
}

/// Whether two entrants' names would be taken for one another: the same once
/// case is folded, `-`, `_` and `.` are dropped and the letters and digits that
/// look alike are taken as one (`0` and `o`; `1`, `i` and `l`; `5` and `s`;
/// `rn` and `m`; `vv` and `w`).
///
/// ```
/// use koth_hill::service::look_alike;
/// for name in ["Victim", "VICTIM", "victim.", "vict1m", "vic-tim", "v1ct1m"] {
///     assert!(look_alike("victim", name), "{name}");
/// }
/// assert!(!look_alike("victim", "victor"));
/// ```
pub fn look_alike(a: &str, b: &str) -> bool {
    fn skeleton(s: &str) -> String {
        let folded: String = s
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | '.'))
            .map(|c| match c.to_ascii_lowercase() {
                '0' => 'o',
                '1' | 'i' | '|' => 'l',
                '5' => 's',
                c => c,
            })
            .collect();
        folded.replace("rn", "m").replace("vv", "w")
    }
    skeleton(a) == skeleton(b)
}
