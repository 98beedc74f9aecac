//! The check phase's comparison: byte for byte, like the seed's `cmp`, and a mismatch
//! described precisely enough to act on — where, and what was there instead.

use crate::model::exercise::Difference;

/// Bytes shown either side of the first difference.
pub const CONTEXT: usize = 16;

/// `None` when the two are identical.
pub fn compare(expected: &[u8], actual: &[u8]) -> Option<Difference> {
    let offset = match expected.iter().zip(actual).position(|(e, a)| e != a) {
        Some(at) => at,
        None if expected.len() == actual.len() => return None,
        None => expected.len().min(actual.len()),
    };
    let start = offset.saturating_sub(CONTEXT);
    let around = |bytes: &[u8]| {
        let end = (offset + CONTEXT).min(bytes.len());
        let mut s = escape(&bytes[start.min(bytes.len())..end]);
        if offset >= bytes.len() {
            s.push_str("<end of file>");
        }
        s
    };
    Some(Difference {
        offset: offset as u64,
        expected_len: expected.len() as u64,
        actual_len: actual.len() as u64,
        context_start: start as u64,
        expected: around(expected),
        actual: around(actual),
    })
}

/// Printable ASCII as itself; newline, tab, backslash and everything else escaped.
pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_outputs_have_no_difference() {
        assert_eq!(compare(b"abc", b"abc"), None);
        assert_eq!(compare(b"", b""), None);
    }

    #[test]
    fn a_flipped_byte_is_found_with_its_context() {
        let expected = b"0123456789abcdefghijklmnopqrstuvwxyz0123456789".to_vec();
        let mut actual = expected.clone();
        actual[20] ^= 0x01;
        let d = compare(&expected, &actual).unwrap();
        assert_eq!(d.offset, 20);
        assert_eq!(d.context_start, 4);
        assert_eq!(d.expected, "456789abcdefghijklmnopqrstuvwxyz");
        assert_eq!(d.actual, "456789abcdefghijjlmnopqrstuvwxyz");
    }

    #[test]
    fn a_truncated_output_differs_at_its_end() {
        let d = compare(b"hello\nworld\n", b"hello\n").unwrap();
        assert_eq!(d.offset, 6);
        assert_eq!(d.actual_len, 6);
        assert_eq!(d.actual, "hello\\n<end of file>");
        assert_eq!(d.expected, "hello\\nworld\\n");
    }

    #[test]
    fn unprintable_bytes_are_escaped() {
        assert_eq!(escape(b"a\x00\x1b[1m\t\\"), "a\\x00\\x1b[1m\\t\\\\");
    }
}
