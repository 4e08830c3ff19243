//! GTP version 2 framing: reading bounded lines, the preprocessing of §2.2, commands with optional ids, and
//! responses (`=` or `?`, the id, the text, a blank line).

use std::io::{self, BufRead};

use crate::error::GtpError;

/// Longest line kept, in bytes. The rest of a longer line is read and dropped, and the command is answered with
/// `? line too long`, so that no input can make the engine hold unbounded memory.
pub const MAX_LINE: usize = 8 << 20;

/// How a read line ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnd {
    Newline,
    /// End of input (the line may still hold a last command without its newline).
    Eof,
}

/// Reads one line (without its `\n`) into `buf`, keeping at most [`MAX_LINE`] bytes; returns how it ended and
/// whether bytes were dropped.
pub fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> io::Result<(LineEnd, bool)> {
    buf.clear();
    let mut dropped = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((LineEnd::Eof, dropped));
        }
        let (take, newline) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        let room = MAX_LINE - buf.len();
        if take > room {
            dropped = true;
        }
        buf.extend_from_slice(&chunk[..take.min(room)]);
        input.consume(take + newline as usize);
        if newline {
            return Ok((LineEnd::Newline, dropped));
        }
    }
}

/// GTP §2.2: control characters other than HT and LF removed, everything from `#` on removed, HT made a space.
/// Invalid UTF-8 becomes U+FFFD (no command contains it, so such a line is simply unknown).
pub fn clean(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    for &b in raw {
        match b {
            b'#' => break,
            b'\t' => out.push(b' '),
            0..=31 | 127 => {}
            _ => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A command line split into its id, name and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command<'a> {
    pub id: Option<u32>,
    pub name: &'a str,
    pub args: Vec<&'a str>,
}

/// Splits a cleaned line. `Ok(None)`: nothing to answer (an empty line). `Err((id, error))`: answer the error.
/// An id is a first token of digits only, at most 2^31 − 1 (GTP's `int`).
#[allow(clippy::type_complexity)]
pub fn split(line: &str) -> Result<Option<Command<'_>>, (Option<u32>, GtpError)> {
    let mut tokens = line.split_whitespace();
    let Some(first) = tokens.next() else {
        return Ok(None);
    };
    let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
        let id = first
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= i32::MAX as u32)
            .ok_or((None, GtpError::InvalidId))?;
        match tokens.next() {
            Some(name) => (Some(id), name),
            None => return Err((Some(id), GtpError::MissingCommand)),
        }
    } else {
        (None, first)
    };
    Ok(Some(Command {
        id,
        name,
        args: tokens.collect(),
    }))
}

/// The first token of a line when it is a valid id: for answering a line that could not be read whole.
pub fn leading_id(line: &str) -> Option<u32> {
    let first = line.split_whitespace().next()?;
    if !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    first.parse::<u32>().ok().filter(|&n| n <= i32::MAX as u32)
}

/// A full response: `=id text` or `?id message`, then a blank line. A text never holds an empty line (that
/// would end the response early): empty lines after the first are dropped, and trailing line breaks too.
pub fn response(id: Option<u32>, result: &Result<String, GtpError>) -> String {
    let (mark, text) = match result {
        Ok(t) => ('=', t.clone()),
        Err(e) => ('?', e.to_string()),
    };
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
    let mut body = lines.next().unwrap_or("").to_string();
    for l in lines.filter(|l| !l.trim().is_empty()) {
        body.push('\n');
        body.push_str(l);
    }
    let id = id.map(|n| n.to_string()).unwrap_or_default();
    format!("{mark}{id} {body}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning() {
        assert_eq!(clean(b"\x01na\x02me\t\r"), "name ");
        assert_eq!(clean(b"play b a1 # comment"), "play b a1 ");
        assert_eq!(clean(b"# only a comment"), "");
        assert_eq!(clean(b"\xff\xfe name"), "\u{fffd}\u{fffd} name");
    }

    #[test]
    fn splitting() {
        let c = split("12 play b a1").unwrap().unwrap();
        assert_eq!((c.id, c.name, c.args), (Some(12), "play", vec!["b", "a1"]));
        assert_eq!(split("   ").unwrap(), None);
        assert_eq!(split("7").unwrap_err(), (Some(7), GtpError::MissingCommand));
        assert_eq!(
            split("99999999999 name").unwrap_err(),
            (None, GtpError::InvalidId)
        );
        assert_eq!(split("2147483648 name").unwrap_err().1, GtpError::InvalidId);
        assert_eq!(
            split("2147483647 name").unwrap().unwrap().id,
            Some(i32::MAX as u32)
        );
        let c = split("-5 name").unwrap().unwrap();
        assert_eq!((c.id, c.name), (None, "-5"));
    }

    #[test]
    fn responses() {
        assert_eq!(response(Some(3), &Ok(String::new())), "=3 \n\n");
        assert_eq!(
            response(None, &Err(GtpError::IllegalMove)),
            "? illegal move\n\n"
        );
        assert_eq!(
            response(None, &Ok("\na\n\nb\n".to_string())),
            "= \na\nb\n\n"
        );
    }

    #[test]
    fn bounded_lines() {
        let mut input = io::Cursor::new(b"ab\ncd".to_vec());
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut buf).unwrap(),
            (LineEnd::Newline, false)
        );
        assert_eq!(buf, b"ab");
        assert_eq!(
            read_line(&mut input, &mut buf).unwrap(),
            (LineEnd::Eof, false)
        );
        assert_eq!(buf, b"cd");
        assert_eq!(
            read_line(&mut input, &mut buf).unwrap(),
            (LineEnd::Eof, false)
        );
        assert!(buf.is_empty());
    }
}
