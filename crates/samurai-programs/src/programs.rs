//! The tournament list file shared with the Coup ppcg runner: see
//! [`koth_arena::programs`], re-exported here under the names this crate uses.

use std::path::Path;

pub use koth_arena::programs::{
    load as load_programs, ListError as ProgramListError, Program as ProgramEntry,
};

/// Parses the text of list file `file` (the path only places folders and names
/// errors; nothing is read).
///
/// ```
/// use koth_samurai_programs::programs::parse_programs;
/// use std::path::Path;
/// let list = parse_programs("# samurai\nChallenger ./challenger\n\"The Waiter\" python3 waiter.py\n", Path::new("t/players.txt")).unwrap();
/// assert_eq!(list[1].name, "The Waiter");
/// assert_eq!(list[1].command, ["python3", "waiter.py"]);
/// assert_eq!(list[1].dir, Path::new("t/The Waiter"));
/// ```
pub fn parse_programs(text: &str, file: &Path) -> Result<Vec<ProgramEntry>, ProgramListError> {
    let base = file.parent().unwrap_or(Path::new(""));
    koth_arena::programs::parse(text, base).map_err(|(line, message)| ProgramListError {
        file: file.display().to_string(),
        line,
        message,
    })
}
