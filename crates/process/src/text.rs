//! Text a bot wrote, made safe to show: every control character but the newline
//! and the tab, and every character that reorders text (bidirectional controls),
//! written out as a visible escape, so a bot's stderr cannot clear a screen, set a
//! terminal's title, write to its clipboard (OSC 52) or hide text on a page.

/// `s` with its control characters shown as escapes: `\x1b` for ESC, `\u{202e}`
/// for a right-to-left override.
///
/// ```
/// assert_eq!(koth_process::printable("a\x1b]52;c;Zm9v\x07b\n"), "a\\x1b]52;c;Zm9v\\x07b\n");
/// assert_eq!(koth_process::printable("ok\ttab"), "ok\ttab");
/// assert_eq!(koth_process::printable("x\u{202e}y"), "x\\u{202e}y");
/// assert_eq!(koth_process::printable("line\r\nover\rwrite"), "line\nover\\x0dwrite");
/// ```
pub fn printable(s: &str) -> String {
    if !s.chars().any(hidden) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        // A line ended the Windows way ends as any other.
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if hidden(c) {
            if (c as u32) < 0x100 {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A character a terminal or a page would act on rather than show.
fn hidden(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        c if c.is_control() => true,
        // Bidirectional embeddings, overrides and isolates; the line and paragraph
        // separators.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}' => true,
        _ => false,
    }
}

/// Whether an error message is the machine's, not a program's: an operating
/// system error for want of file descriptors (EMFILE, ENFILE), memory
/// (ENOMEM), processes or threads (EAGAIN), or disk (ENOSPC, EDQUOT), as Rust
/// prints them (`… (os error 24)`).
///
/// ```
/// use koth_process::machine_error;
/// assert!(machine_error("cannot start \"python3\" in bots/x: Too many open files (os error 24)"));
/// assert!(!machine_error("cannot start \"./bot\" in bots/x: No such file or directory (os error 2)"));
/// ```
pub fn machine_error(message: &str) -> bool {
    const CODES: [i32; 6] = [
        libc::EMFILE,
        libc::ENFILE,
        libc::ENOMEM,
        libc::EAGAIN,
        libc::ENOSPC,
        libc::EDQUOT,
    ];
    message.match_indices("(os error ").any(|(at, m)| {
        let rest = &message[at + m.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<i32>().is_ok_and(|n| CODES.contains(&n))
    })
}
