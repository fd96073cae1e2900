//! The hill's errors: one enum, whose variant (never its words) decides what a
//! caller answers: the page's HTTP status ([`crate::web`]), the command line's
//! exit status ([`Kind::exit_code`]).

use crate::store::StoreError;

/// A hill's failure or refusal, in words for its organiser or an author, with
/// the fix where there is one.
#[derive(Debug, thiserror::Error)]
pub enum HillError {
    /// The store failed or refused ([`StoreError`] says how).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// What was named is not there (a block, a game).
    #[error("{0}")]
    NotFound(String),
    /// The one asking did not say who they are: no token, or one the hill
    /// does not know.
    #[error("{0}")]
    Unauthorized(String),
    /// The one asking may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// It cannot be done in the state things are in (another process plays
    /// the hill; a name too like another's; a copy of another's bot).
    #[error("{0}")]
    Conflict(String),
    /// What was given, or what the hill holds, is not valid (a name, a bot, a
    /// damaged record).
    #[error("{0}")]
    Invalid(String),
    /// The machine failed (a folder, a lock, randomness).
    #[error("{0}")]
    Io(String),
}

/// What kind of failure an error is, whichever layer raised it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Not there.
    NotFound,
    /// Not known: no token, or not one of the hill's.
    Unauthorized,
    /// Not allowed.
    Forbidden,
    /// Not in this state.
    Conflict,
    /// Not valid.
    Invalid,
    /// The storage or the machine failed.
    Failed,
}

impl HillError {
    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            HillError::Store(e) => e.kind(),
            HillError::NotFound(_) => Kind::NotFound,
            HillError::Unauthorized(_) => Kind::Unauthorized,
            HillError::Forbidden(_) => Kind::Forbidden,
            HillError::Conflict(_) => Kind::Conflict,
            HillError::Invalid(_) => Kind::Invalid,
            HillError::Io(_) => Kind::Failed,
        }
    }
}

impl Kind {
    /// The exit status the command line ends with (documented in
    /// docs/hill.md): 3 not found, 4 forbidden, 5 conflict, 6 invalid, 7 the
    /// storage or the machine failed (2 stays every other error's). A token
    /// not known is not allowed either: 4.
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::NotFound => 3,
            Kind::Unauthorized | Kind::Forbidden => 4,
            Kind::Conflict => 5,
            Kind::Invalid => 6,
            Kind::Failed => 7,
        }
    }
}

impl StoreError {
    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            StoreError::NotFound(_) => Kind::NotFound,
            StoreError::Forbidden(_) => Kind::Forbidden,
            StoreError::Conflict(_) => Kind::Conflict,
            StoreError::Invalid(_) => Kind::Invalid,
            StoreError::Storage(_) => Kind::Failed,
        }
    }
}
