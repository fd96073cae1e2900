//! The list of external programs of a tournament (seeds 000 and 002): one program
//! a line, its name then its command, each program living in the folder of that
//! name beside the list, which is its working directory.
//!
//! ```text
//! # name        command
//! Challenger    ./challenger
//! Random        python3 random_bot.py
//! "The Waiter"  node waiter.js
//! ```

use std::path::{Path, PathBuf};

/// One program of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Its name in standings.
    pub name: String,
    /// The command: program and fixed arguments.
    pub command: Vec<String>,
    /// Its folder (the working directory): `<list folder>/<name>`.
    pub dir: PathBuf,
    /// The line of the list it came from.
    pub line: usize,
}

/// A list that cannot be used, with the file, the line and the fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", if *line > 0 { format!(":{line}") } else { String::new() })]
pub struct ListError {
    /// The list file.
    pub file: String,
    /// The 1-based line (0 for the whole file).
    pub line: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// Reads and checks a program list: names unique, folders present. (The runner
/// checks the size of the whole field, built-in bots included.)
pub fn load(path: &Path) -> Result<Vec<Program>, ListError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ListError {
        file: file.clone(),
        line: 0,
        message: format!("cannot read the program list: {e}"),
    })?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base
    };
    let programs = parse(&text, &base).map_err(|(line, message)| ListError {
        file: file.clone(),
        line,
        message,
    })?;
    for p in &programs {
        if !p.dir.is_dir() {
            return Err(ListError {
                file: file.clone(),
                line: p.line,
                message: format!(
                    "the folder {} for {:?} does not exist: each program lives in a folder named after it, beside the list",
                    p.dir.display(),
                    p.name
                ),
            });
        }
    }
    Ok(programs)
}

/// Parses a program list's text; folders are resolved against `base` but not checked.
/// The error is (line, message).
pub fn parse(text: &str, base: &Path) -> Result<Vec<Program>, (usize, String)> {
    let mut out: Vec<Program> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let s = raw.trim();
        if s.is_empty() || s.starts_with('#') {
            continue;
        }
        let (name, rest) = if let Some(r) = s.strip_prefix('"') {
            let end = r.find('"').ok_or((
                line,
                "a quoted name has no closing quote: write \"Name With Spaces\" command"
                    .to_string(),
            ))?;
            (r[..end].to_string(), r[end + 1..].trim())
        } else {
            match s.split_once(char::is_whitespace) {
                Some((n, r)) => (n.to_string(), r.trim()),
                None => (s.to_string(), ""),
            }
        };
        if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
            return Err((
                line,
                format!(
                    "{name:?} is not a usable name: a name is also a folder name, without slashes"
                ),
            ));
        }
        let command = split_words(rest)
            .map_err(|m| (line, format!("{m}: close the quote in the command")))?;
        if command.is_empty() {
            return Err((
                line,
                format!(
                    "no command for {name:?}: write the name, then the command, e.g. `{name} ./{}`",
                    name.to_lowercase()
                ),
            ));
        }
        if let Some(prev) = out.iter().find(|p| p.name == name) {
            return Err((
                line,
                format!(
                    "{name:?} is listed twice (first on line {}): give each program its own name",
                    prev.line
                ),
            ));
        }
        out.push(Program {
            dir: base.join(&name),
            name,
            command,
            line,
        });
    }
    Ok(out)
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

    #[test]
    fn parses_names_commands_comments_and_quotes() {
        let text = "# the field\nChallenger ./challenger\n\n  Random   python3 random.py --fast\n\"The Waiter\" node waiter.js\n";
        let p = parse(text, Path::new("/t")).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].name, "Challenger");
        assert_eq!(p[0].command, ["./challenger"]);
        assert_eq!(p[0].dir, Path::new("/t/Challenger"));
        assert_eq!(p[1].command, ["python3", "random.py", "--fast"]);
        assert_eq!(p[1].line, 4);
        assert_eq!(p[2].name, "The Waiter");
        assert_eq!(p[2].dir, Path::new("/t/The Waiter"));
    }

    #[test]
    fn bad_lines_name_the_line_and_the_fix() {
        assert_eq!(parse("A ./a\nB\n", Path::new(".")).unwrap_err().0, 2);
        assert!(parse("A ./a\nA ./b\n", Path::new("."))
            .unwrap_err()
            .1
            .contains("twice"));
        assert!(parse("\"Open ./a\n", Path::new("."))
            .unwrap_err()
            .1
            .contains("closing quote"));
        assert!(parse("../x ./a\n", Path::new("."))
            .unwrap_err()
            .1
            .contains("slashes"));
        assert!(parse("A python3 'my bot.py\n", Path::new("."))
            .unwrap_err()
            .1
            .contains("unclosed"));
        let p = parse("A python3 'my bot.py' --x \"a b\"\n", Path::new(".")).unwrap();
        assert_eq!(p[0].command, ["python3", "my bot.py", "--x", "a b"]);
    }

    #[test]
    fn load_checks_folders() {
        let dir = std::env::temp_dir().join(format!("koth-programs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("A")).unwrap();
        std::fs::write(dir.join("list.txt"), "A ./a\nB ./b\n").unwrap();
        let e = load(&dir.join("list.txt")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("list.txt:2:"), "{e}");
        std::fs::create_dir_all(dir.join("B")).unwrap();
        assert_eq!(load(&dir.join("list.txt")).unwrap().len(), 2);
        let e = load(&dir.join("missing.txt")).unwrap_err();
        assert!(e.message.contains("cannot read"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
