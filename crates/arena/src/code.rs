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
pub trait ChoiceCode: Sized {
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

/// Serialises a record's choices as a string of codes when every one has a code.
pub(crate) fn serialize<C, S>(choices: &Option<Vec<C>>, s: S) -> Result<S::Ok, S::Error>
where
    C: ChoiceCode + Serialize,
    S: Serializer,
{
    match choices {
        Some(v) => match encode(v) {
            Some(codes) => s.serialize_str(&codes),
            None => v.serialize(s),
        },
        None => s.serialize_none(),
    }
}

/// Reads a record's choices from a string of codes or a JSON list (older records,
/// and choices without codes).
pub(crate) fn deserialize<'de, C, D>(d: D) -> Result<Option<Vec<C>>, D::Error>
where
    C: ChoiceCode + DeserializeOwned,
    D: Deserializer<'de>,
{
    struct Choices<C>(PhantomData<C>);
    impl<'de, C: ChoiceCode + DeserializeOwned> Visitor<'de> for Choices<C> {
        type Value = Option<Vec<C>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string of choice codes or a list of choices")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            decode(v).map(Some).map_err(E::custom)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(c) = seq.next_element::<C>()? {
                v.push(c);
            }
            Ok(Some(v))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Choices(PhantomData))
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
    fn values_keep_their_codes() {
        let v: Vec<serde_json::Value> = decode("Az_").unwrap();
        assert_eq!(v, [0u8, 51, 63].map(serde_json::Value::from));
        assert_eq!(encode(&v).as_deref(), Some("Az_"));
        let objects = [serde_json::json!({"act": "tax"})];
        assert_eq!(encode(&objects), None);
    }
}
