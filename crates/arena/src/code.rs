//! One-character codes for choices, so a full game record costs about a byte a
//! decision (`"choices":"CAAAg…"`) instead of a JSON value each.

use serde::de::{self, DeserializeOwned, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::Serialize;
use std::fmt;
use std::marker::PhantomData;

/// The 64 characters of the codes, in order (URL-safe base 64: no JSON escaping).
pub const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// A choice with a code below 64, written as one character in game records.
///
/// Codes are part of the record format: never renumber them.
///
/// ```
/// use koth_arena::code::ChoiceCode;
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Rps { Rock, Paper, Scissors }
/// impl ChoiceCode for Rps {
///     fn code(&self) -> Option<u8> { Some(*self as u8) }
///     fn from_code(c: u8) -> Option<Self> {
///         [Rps::Rock, Rps::Paper, Rps::Scissors].get(c as usize).copied()
///     }
/// }
/// assert_eq!(Rps::from_code(Rps::Paper.code().unwrap()), Some(Rps::Paper));
/// ```
///
/// `from_code` must undo `code`: a record decodes the codes it wrote (and checks a
/// record it reads), so `from_code(c.code()?) == Some(c)` for every choice.
pub trait ChoiceCode: Sized + Clone {
    /// The code, below 64; `None` (or 64 and up) makes the record keep the game's
    /// choices as a JSON list.
    fn code(&self) -> Option<u8>;
    /// The choice of a code, if it is one.
    fn from_code(code: u8) -> Option<Self>;
}

/// Test games number their choices.
impl ChoiceCode for u8 {
    fn code(&self) -> Option<u8> {
        (*self < 64).then_some(*self)
    }
    fn from_code(code: u8) -> Option<u8> {
        Some(code)
    }
}

/// Records read without their game (merging, checking) keep coded choices as
/// numbers, and write them back as the same characters.
impl ChoiceCode for serde_json::Value {
    fn code(&self) -> Option<u8> {
        self.as_u64().filter(|&c| c < 64).map(|c| c as u8)
    }
    fn from_code(code: u8) -> Option<Self> {
        Some(code.into())
    }
}

fn code_of(ch: u8) -> Option<u8> {
    match ch {
        b'A'..=b'Z' => Some(ch - b'A'),
        b'a'..=b'z' => Some(ch - b'a' + 26),
        b'0'..=b'9' => Some(ch - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    }
}

/// The choices as a string of codes, or `None` if one of them has no code.
pub fn encode<C: ChoiceCode>(choices: &[C]) -> Option<String> {
    // A plain loop: records are written on the hot path of a run.
    let mut out = Vec::with_capacity(choices.len());
    for c in choices {
        out.push(*ALPHABET.get(c.code()? as usize)?);
    }
    Some(String::from_utf8(out).expect("the alphabet is ASCII"))
}

/// The choices of a string of codes.
pub fn decode<C: ChoiceCode>(s: &str) -> Result<Vec<C>, String> {
    s.bytes()
        .enumerate()
        .map(|(i, b)| {
            code_of(b)
                .and_then(C::from_code)
                .ok_or_else(|| format!("choice {i} has no meaning: {:?}", b as char))
        })
        .collect()
}

/// A game's choices in order, as a record keeps them: one code character a choice
/// (a byte each, written into the record as it is) when every choice has a code,
/// otherwise the list itself. Built during play, so a full record costs a byte a
/// decision rather than a copy of each choice.
///
/// ```
/// use koth_arena::Choices;
/// let mut c: Choices<u8> = Choices::with_capacity(4);
/// c.push(0);
/// c.push(51);
/// assert_eq!(c.codes(), Some("Az"));
/// c.push(64); // no code: the record falls back to the list
/// assert_eq!(c.codes(), None);
/// assert_eq!(c.to_vec(), [0, 51, 64]);
/// assert_eq!(Choices::from(vec![0u8, 51, 64]), c);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choices<C>(Repr<C>);

/// Coded whenever every choice has a code, so equal lists are equal values.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Repr<C> {
    /// Characters of [`ALPHABET`], one a choice.
    Codes(Vec<u8>),
    List(Vec<C>),
}

impl<C> Default for Choices<C> {
    fn default() -> Self {
        Choices(Repr::Codes(Vec::new()))
    }
}

impl<C: ChoiceCode> Choices<C> {
    /// No choices yet, room for `n`.
    pub fn with_capacity(n: usize) -> Self {
        Choices(Repr::Codes(Vec::with_capacity(n)))
    }

    /// No choices yet, coded into `buffer` (emptied first): a caller may reuse one
    /// buffer for many games and [`Choices::compact`] each.
    pub fn from_buffer(mut buffer: Vec<u8>) -> Self {
        buffer.clear();
        Choices(Repr::Codes(buffer))
    }

    /// The same choices in memory of their exact size, and the buffer they were
    /// coded into (when they were), to reuse.
    pub fn compact(self) -> (Self, Option<Vec<u8>>) {
        match self.0 {
            Repr::Codes(buffer) => (
                Choices(Repr::Codes(buffer.as_slice().to_vec())),
                Some(buffer),
            ),
            list => (Choices(list), None),
        }
    }

    /// Appends a choice.
    #[inline]
    pub fn push(&mut self, c: C) {
        match &mut self.0 {
            Repr::Codes(codes) => match c.code().and_then(|k| ALPHABET.get(k as usize)) {
                Some(&ch) => codes.push(ch),
                None => self.spill(c),
            },
            Repr::List(list) => list.push(c),
        }
    }

    /// The first choice without a code: from now on the list itself.
    #[cold]
    fn spill(&mut self, c: C) {
        let mut list = self.to_vec();
        list.push(c);
        self.0 = Repr::List(list);
    }

    /// How many choices.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Codes(c) => c.len(),
            Repr::List(l) => l.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The choices, in order.
    pub fn iter(&self) -> Iter<'_, C> {
        match &self.0 {
            Repr::Codes(c) => Iter {
                codes: c.iter(),
                list: [].iter(),
            },
            Repr::List(l) => Iter {
                codes: [].iter(),
                list: l.iter(),
            },
        }
    }

    /// The choices as a list.
    pub fn to_vec(&self) -> Vec<C> {
        self.iter().collect()
    }

    /// The code characters, when every choice has one.
    pub(crate) fn code_bytes(&self) -> Option<&[u8]> {
        match &self.0 {
            Repr::Codes(c) => Some(c),
            Repr::List(_) => None,
        }
    }

    /// The string of codes, when every choice has one.
    pub fn codes(&self) -> Option<&str> {
        self.code_bytes()
            .map(|c| std::str::from_utf8(c).expect("the alphabet is ASCII"))
    }
}

/// The choices of a [`Choices`], in order.
pub struct Iter<'a, C> {
    codes: std::slice::Iter<'a, u8>,
    list: std::slice::Iter<'a, C>,
}

impl<C: ChoiceCode> Iterator for Iter<'_, C> {
    type Item = C;
    #[inline]
    fn next(&mut self) -> Option<C> {
        match self.codes.next() {
            Some(&b) => Some(decode_one(b)),
            None => self.list.next().cloned(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.codes.len() + self.list.len();
        (n, Some(n))
    }
}

impl<C: ChoiceCode> ExactSizeIterator for Iter<'_, C> {}

impl<'a, C: ChoiceCode> IntoIterator for &'a Choices<C> {
    type Item = C;
    type IntoIter = Iter<'a, C>;
    fn into_iter(self) -> Iter<'a, C> {
        self.iter()
    }
}

/// The choice of a code character that [`Choices`] checked when it took it.
fn decode_one<C: ChoiceCode>(b: u8) -> C {
    code_of(b)
        .and_then(C::from_code)
        .expect("a code Choices took has a choice")
}

impl<C: ChoiceCode> From<Vec<C>> for Choices<C> {
    fn from(list: Vec<C>) -> Self {
        match encode(&list) {
            Some(codes) => Choices(Repr::Codes(codes.into_bytes())),
            None => Choices(Repr::List(list)),
        }
    }
}

impl<C: ChoiceCode> FromIterator<C> for Choices<C> {
    fn from_iter<I: IntoIterator<Item = C>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut c = Choices::with_capacity(iter.size_hint().0);
        for x in iter {
            c.push(x);
        }
        c
    }
}

impl<C: ChoiceCode + Serialize> Serialize for Choices<C> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.codes(), &self.0) {
            (Some(codes), _) => s.serialize_str(codes),
            (None, Repr::List(l)) => l.serialize(s),
            (None, Repr::Codes(_)) => unreachable!("coded choices have their codes"),
        }
    }
}

impl<'de, C: ChoiceCode + DeserializeOwned> serde::Deserialize<'de> for Choices<C> {
    /// A string of codes, or a JSON list (older records, and choices without codes).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<C>(PhantomData<C>);
        impl<'de, C: ChoiceCode + DeserializeOwned> Visitor<'de> for V<C> {
            type Value = Choices<C>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string of choice codes or a list of choices")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                // Every character must stand for a choice: iteration relies on it.
                decode::<C>(v).map_err(E::custom)?;
                Ok(Choices(Repr::Codes(v.as_bytes().to_vec())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(c) = seq.next_element::<C>()? {
                    v.push(c);
                }
                Ok(v.into())
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_own_character() {
        for c in 0..64u8 {
            assert_eq!(code_of(ALPHABET[c as usize]), Some(c));
        }
        assert_eq!(code_of(b'"'), None);
        assert_eq!(code_of(b'='), None);
    }

    #[test]
    fn codes_round_trip_and_bad_characters_are_named() {
        let v: Vec<u8> = (0..64).collect();
        let s = encode(&v).unwrap();
        assert_eq!(s.len(), 64);
        assert_eq!(decode::<u8>(&s).unwrap(), v);
        assert_eq!(encode(&[1u8, 64]), None);
        let e = decode::<u8>("AB*").unwrap_err();
        assert!(e.contains("choice 2") && e.contains('*'), "{e}");
    }

    #[test]
    fn choices_pushed_collected_or_converted_are_the_same() {
        let coded: Vec<u8> = vec![0, 63, 5, 5];
        let pushed: Choices<u8> = coded.iter().copied().collect();
        assert_eq!(pushed, Choices::from(coded.clone()));
        assert_eq!(pushed.codes(), Some("A_FF"));
        assert_eq!(pushed.iter().len(), 4);
        assert_eq!(pushed.to_vec(), coded);
        // One choice without a code turns the whole list into a list, in order.
        let mixed = vec![1u8, 2, 64, 3];
        let mut c = Choices::from_buffer(b"junk".to_vec());
        assert!(c.is_empty(), "a reused buffer starts empty");
        for &x in &mixed {
            c.push(x);
        }
        assert_eq!(c.codes(), None);
        assert_eq!(c.to_vec(), mixed);
        assert_eq!(c, Choices::from(mixed.clone()));
        assert_eq!(serde_json::to_string(&c).unwrap(), "[1,2,64,3]");
        // Compacting keeps the choices and hands back the coding buffer.
        let (kept, buffer) = pushed.clone().compact();
        assert_eq!(kept, pushed);
        assert!(buffer.is_some());
        assert_eq!(c.clone().compact(), (c, None));
    }

    #[test]
    fn choices_read_from_records_are_checked() {
        let c: Choices<u8> = serde_json::from_str(r#""ABC_""#).unwrap();
        assert_eq!(c.to_vec(), [0, 1, 2, 63]);
        let c: Choices<u8> = serde_json::from_str("[0,1,2,63]").unwrap();
        assert_eq!(
            c.codes(),
            Some("ABC_"),
            "an old list of coded choices reads coded"
        );
        let e = serde_json::from_str::<Choices<u8>>(r#""AB*""#).unwrap_err();
        assert!(e.to_string().contains("choice 2"), "{e}");
    }

    #[test]
    fn values_keep_their_codes() {
        let v: Vec<serde_json::Value> = decode("Az_").unwrap();
        assert_eq!(v, [0u8, 51, 63].map(serde_json::Value::from));
        assert_eq!(encode(&v).as_deref(), Some("Az_"));
        let objects = [serde_json::json!({"act": "tax"})];
        assert_eq!(encode(&objects), None);
    }
}
