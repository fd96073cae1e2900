//! The tournament list file shared with the Coup ppcg runner: one program a line,
//! the name then the command, separated by white space:
//!
//! ```text
//! # name        command
//! Challenger    ./challenger
//! "The Waiter"  python3 waiter.py
//! ```
//!
//! The name is the first white-space-delimited word, or a double-quoted name that
//! may hold spaces. The command is split into words; single or double quotes group
//! words with spaces. Blank lines and lines starting with `#` are ignored. Each
//! program lives in the folder of its name beside the file, and runs there.

use std::fmt;
use std::path::{Path, PathBuf};

/// One program of a list file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramEntry {
    /// The name shown in standings.
    pub name: String,
    /// The command: the program, then its arguments.
    pub command: Vec<String>,
    /// The folder it runs in: the folder of its name beside the list file.
    pub dir: PathBuf,
    /// The line of the list file, from 1.
    pub line: usize,
}

/// A problem with a list file: which file, which line, what is wrong and the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramListError {
    /// The list file.
    pub file: PathBuf,
    /// The line, from 1, when the problem is on one line.
    pub line: Option<usize>,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for ProgramListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(
                f,
                "{}:{line}: {}; {}",
                self.file.display(),
                self.problem,
                self.fix
            ),
            None => write!(f, "{}: {}; {}", self.file.display(), self.problem, self.fix),
        }
    }
}

impl std::error::Error for ProgramListError {}

/// Parses the text of list file `file` (the path only places folders and names
/// errors; nothing is read).
///
/// ```
/// use koth_samurai::programs::parse_programs;
/// use std::path::Path;
/// let list = parse_programs("# samurai\nChallenger ./challenger\n\"The Waiter\" python3 waiter.py\n", Path::new("t/players.txt")).unwrap();
/// assert_eq!(list[1].name, "The Waiter");
/// assert_eq!(list[1].command, ["python3", "waiter.py"]);
/// assert_eq!(list[1].dir, Path::new("t/The Waiter"));
/// ```
pub fn parse_programs(text: &str, file: &Path) -> Result<Vec<ProgramEntry>, ProgramListError> {
    let base = file.parent().unwrap_or(Path::new(""));
    let mut out: Vec<ProgramEntry> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |problem: String, fix: &str| ProgramListError {
            file: file.to_path_buf(),
            line: Some(line),
            problem,
            fix: fix.to_string(),
        };
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (name, rest) =
            split_name(trimmed).map_err(|p| err(p, "close the quote around the name"))?;
        if name.is_empty() {
            return Err(err(
                "the name is empty".into(),
                "write a name, then the command, e.g. `Challenger ./challenger`",
            ));
        }
        if name == "." || name == ".." || name.contains(['/', '\\']) {
            return Err(err(
                format!("the name {name:?} cannot be a folder beside the list file"),
                "use a name without slashes that is not . or ..",
            ));
        }
        let command = split_words(rest).map_err(|p| err(p, "close the quote in the command"))?;
        if command.is_empty() {
            return Err(err(
                format!("{name:?} has no command"),
                "write the name, then the command that runs it, separated by white space, e.g. `Challenger ./challenger`",
            ));
        }
        if let Some(first) = out.iter().find(|p| p.name == name) {
            return Err(err(
                format!("the name {name:?} is already used on line {}", first.line),
                "give every program its own name (and folder)",
            ));
        }
        out.push(ProgramEntry {
            dir: base.join(&name),
            name,
            command,
            line,
        });
    }
    Ok(out)
}

/// Reads and parses list file `file`, and checks that every program's folder exists.
pub fn load_programs(file: &Path) -> Result<Vec<ProgramEntry>, ProgramListError> {
    let text = std::fs::read_to_string(file).map_err(|e| ProgramListError {
        file: file.to_path_buf(),
        line: None,
        problem: format!("cannot read the list of programs: {e}"),
        fix: "check the path; the file lists one program a line: the name, then the command".into(),
    })?;
    let list = parse_programs(&text, file)?;
    for p in &list {
        if !p.dir.is_dir() {
            return Err(ProgramListError {
                file: file.to_path_buf(),
                line: Some(p.line),
                problem: format!("the folder {} of {:?} does not exist", p.dir.display(), p.name),
                fix: "put each program in a folder named like it beside the list file, or fix the name".into(),
            });
        }
    }
    Ok(list)
}

/// Splits a non-empty, trimmed line into the name and the rest.
fn split_name(line: &str) -> Result<(String, &str), String> {
    if let Some(quoted) = line.strip_prefix('"') {
        let end = quoted
            .find('"')
            .ok_or_else(|| "the quoted name has no closing quote".to_string())?;
        let rest = &quoted[end + 1..];
        if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
            return Err("the quoted name runs into the command".to_string());
        }
        return Ok((quoted[..end].trim().to_string(), rest));
    }
    let end = line.find(char::is_whitespace).unwrap_or(line.len());
    Ok((line[..end].to_string(), &line[end..]))
}

/// Splits a command into words; single or double quotes group words with spaces.
fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("the command has an unclosed {q}"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<ProgramEntry>, ProgramListError> {
        parse_programs(text, Path::new("arena/players.txt"))
    }

    #[test]
    fn names_commands_and_folders() {
        let list = parse(
            "\n# comment\n  # indented comment\nChallenger ./challenger\nThe\tpython3 the.py --fast\n\"The Observer\"  node 'observer bot.js'\n",
        )
        .unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(
            list[0],
            ProgramEntry {
                name: "Challenger".into(),
                command: vec!["./challenger".into()],
                dir: PathBuf::from("arena/Challenger"),
                line: 4
            }
        );
        assert_eq!(list[1].name, "The");
        assert_eq!(list[1].command, ["python3", "the.py", "--fast"]);
        assert_eq!(list[2].name, "The Observer");
        assert_eq!(list[2].command, ["node", "observer bot.js"]);
        assert_eq!(list[2].dir, Path::new("arena/The Observer"));
        assert_eq!(list[2].line, 6);
    }

    #[test]
    fn empty_quotes_make_an_empty_argument() {
        let list = parse("a prog \"\" x\"y z\"w\n").unwrap();
        assert_eq!(list[0].command, ["prog", "", "xy zw"]);
    }

    #[test]
    fn a_file_beside_nothing_uses_relative_folders() {
        let list = parse_programs("A ./a\n", Path::new("players.txt")).unwrap();
        assert_eq!(list[0].dir, Path::new("A"));
    }

    #[test]
    fn errors_name_the_file_line_and_fix() {
        let e = parse("ok ./ok\nLonely\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let msg = e.to_string();
        assert!(
            msg.starts_with("arena/players.txt:2: \"Lonely\" has no command;"),
            "{msg}"
        );
        assert!(msg.contains("e.g."), "{msg}");

        let e = parse("\"The Waiter python3 w.py\n").unwrap_err();
        assert!(e.to_string().contains("closing quote"), "{e}");
        let e = parse("\"The Waiter\"python3 w.py\n").unwrap_err();
        assert!(e.to_string().contains("runs into"), "{e}");
        let e = parse("\"\" python3 w.py\n").unwrap_err();
        assert!(e.problem.contains("empty"), "{e}");
        let e = parse("a/b ./x\n").unwrap_err();
        assert!(e.problem.contains("folder"), "{e}");
        let e = parse("a 'x\n").unwrap_err();
        assert!(e.problem.contains("unclosed"), "{e}");
        let e = parse("a ./a\n\nb ./b\na ./c\n").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.problem.contains("line 1"), "{e}");
    }

    #[test]
    fn load_checks_folders() {
        let dir =
            std::env::temp_dir().join(format!("koth-samurai-programs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("Here")).unwrap();
        let file = dir.join("players.txt");
        std::fs::write(&file, "Here ./here\n").unwrap();
        assert_eq!(load_programs(&file).unwrap()[0].dir, dir.join("Here"));
        std::fs::write(&file, "Here ./here\nGone ./gone\n").unwrap();
        let e = load_programs(&file).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.problem.contains("does not exist"), "{e}");
        let e = load_programs(&dir.join("missing.txt")).unwrap_err();
        assert_eq!(e.line, None);
        assert!(e.to_string().contains("cannot read"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
