//! Order keys ("fractional indexing"): strings whose byte order is the slide order. A key can
//! always be made between two others, so adding or moving slides rewrites only the slides that
//! move, whatever the size of the deck.
//!
//! A key is an integer part and an optional fraction, both over the base-62 digits
//! `0-9A-Za-z` (in ASCII order). The integer part's first character gives its length:
//! `a`..`z` are non-negative integers of 1..26 digits, `Z`..`A` negative ones, so that byte
//! order is numeric order. Appending after the last key increments the integer (keys stay a
//! few characters long for any deck size); a key between two neighbours bisects the fraction.
//! A fraction never ends in `0`.

const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ZERO: u8 = b'0';
const MAX_DIGIT: u8 = b'z';

fn value(c: u8) -> usize {
    DIGITS
        .iter()
        .position(|&d| d == c)
        .expect("order keys are made only of base-62 digits")
}

/// Length of the integer part that starts with `head` (head included).
fn integer_len(head: u8) -> usize {
    match head {
        b'a'..=b'z' => (head - b'a') as usize + 2,
        b'A'..=b'Z' => (b'Z' - head) as usize + 2,
        _ => panic!("order key with an invalid head {:?}", head as char),
    }
}

fn split(key: &str) -> (&str, &str) {
    let n = integer_len(key.as_bytes()[0]).min(key.len());
    key.split_at(n)
}

fn increment(int: &str) -> Option<String> {
    let mut bytes = int.as_bytes().to_vec();
    let head = bytes[0];
    let mut i = bytes.len() - 1;
    while i >= 1 {
        if bytes[i] == MAX_DIGIT {
            bytes[i] = ZERO;
            i -= 1;
        } else {
            bytes[i] = DIGITS[value(bytes[i]) + 1];
            return Some(String::from_utf8(bytes).expect("digits are ASCII"));
        }
    }
    // Every digit carried: the integer needs another length.
    match head {
        b'Z' => Some("a0".into()),
        b'z' => None,
        _ => {
            let mut digits = bytes[1..].to_vec();
            let new_head = head + 1;
            if new_head > b'a' {
                digits.push(ZERO);
            } else {
                digits.pop();
            }
            let mut out = vec![new_head];
            out.extend(digits);
            Some(String::from_utf8(out).expect("digits are ASCII"))
        }
    }
}

fn decrement(int: &str) -> Option<String> {
    let mut bytes = int.as_bytes().to_vec();
    let head = bytes[0];
    let mut i = bytes.len() - 1;
    while i >= 1 {
        if bytes[i] == ZERO {
            bytes[i] = MAX_DIGIT;
            i -= 1;
        } else {
            bytes[i] = DIGITS[value(bytes[i]) - 1];
            return Some(String::from_utf8(bytes).expect("digits are ASCII"));
        }
    }
    match head {
        b'a' => Some("Zz".into()),
        b'A' => None,
        _ => {
            let mut digits = bytes[1..].to_vec();
            let new_head = head - 1;
            if new_head < b'Z' {
                digits.push(MAX_DIGIT);
            } else {
                digits.pop();
            }
            let mut out = vec![new_head];
            out.extend(digits);
            Some(String::from_utf8(out).expect("digits are ASCII"))
        }
    }
}

/// A fraction strictly between fractions `a` and `b` (`None` = 1).
fn midpoint(a: &[u8], b: Option<&[u8]>) -> String {
    if let Some(b) = b {
        let mut n = 0;
        while n < b.len() && a.get(n).copied().unwrap_or(ZERO) == b[n] {
            n += 1;
        }
        if n > 0 {
            let rest_a = a.get(n..).unwrap_or(&[]);
            return String::from_utf8(b[..n].to_vec()).expect("digits are ASCII")
                + &midpoint(rest_a, Some(&b[n..]));
        }
    }
    let da = a.first().map_or(0, |&c| value(c));
    let db = b.and_then(|b| b.first()).map_or(62, |&c| value(c));
    if db - da > 1 {
        return (DIGITS[(da + db) / 2] as char).to_string();
    }
    match b {
        Some(b) if b.len() > 1 => (b[0] as char).to_string(),
        _ => (DIGITS[da] as char).to_string() + &midpoint(a.get(1..).unwrap_or(&[]), None),
    }
}

/// A key strictly between `a` and `b` (`None` = before everything / after everything).
/// Requires `a < b` when both are given.
pub fn between(a: Option<&str>, b: Option<&str>) -> String {
    match (a, b) {
        (None, None) => "a0".into(),
        (None, Some(b)) => {
            let (ib, fb) = split(b);
            if !fb.is_empty() {
                return ib.to_string();
            }
            match decrement(ib) {
                Some(i) => i,
                None => ib.to_string() + &midpoint(b"", Some(fb.as_bytes())),
            }
        }
        (Some(a), None) => {
            let (ia, fa) = split(a);
            match increment(ia) {
                Some(i) => i,
                None => ia.to_string() + &midpoint(fa.as_bytes(), None),
            }
        }
        (Some(a), Some(b)) => {
            let (ia, fa) = split(a);
            let (ib, fb) = split(b);
            if ia == ib {
                return ia.to_string() + &midpoint(fa.as_bytes(), Some(fb.as_bytes()));
            }
            match increment(ia) {
                Some(i) if i.as_str() < b => i,
                _ => ia.to_string() + &midpoint(fa.as_bytes(), None),
            }
        }
    }
}

/// `n` increasing keys strictly between `a` and `b`: consecutive integers after `a` when
/// there is no upper bound, otherwise bisected evenly so their length grows with log(n).
pub fn n_between(a: Option<&str>, b: Option<&str>, n: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(n);
    if b.is_none() {
        let mut last = a.map(str::to_string);
        for _ in 0..n {
            let k = between(last.as_deref(), None);
            out.push(k.clone());
            last = Some(k);
        }
    } else {
        fill(a, b, n, &mut out);
    }
    out
}

fn fill(a: Option<&str>, b: Option<&str>, n: usize, out: &mut Vec<String>) {
    if n == 0 {
        return;
    }
    let mid = between(a, b);
    let left = (n - 1) / 2;
    fill(a, Some(&mid), left, out);
    out.push(mid.clone());
    fill(Some(&mid), b, n - 1 - left, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn keys_fall_between_their_bounds() {
        assert_eq!(between(None, None), "a0");
        assert_eq!(between(Some("a0"), None), "a1");
        assert_eq!(between(None, Some("a0")), "Zz");
        assert_eq!(between(Some("az"), None), "b00");
        assert_eq!(between(Some("Zz"), None), "a0");
        let m = between(Some("a0"), Some("a1"));
        assert!("a0" < m.as_str() && m.as_str() < "a1", "{m}");
    }

    #[test]
    fn ten_thousand_appends_stay_short() {
        let keys = n_between(None, None, 10_000);
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        assert!(keys.iter().all(|k| k.len() <= 4));
        let inside = n_between(Some(&keys[10]), Some(&keys[11]), 200);
        assert!(inside.windows(2).all(|w| w[0] < w[1]));
        assert!(keys[10] < inside[0] && inside[199] < keys[11]);
        assert!(inside.iter().all(|k| k.len() <= 12));
    }

    #[test]
    fn repeated_inserts_before_the_first_key_stay_short() {
        let mut first = "a0".to_string();
        for _ in 0..10_000 {
            let k = between(None, Some(&first));
            assert!(k < first);
            first = k;
        }
        assert!(first.len() <= 5, "{first}");
    }

    proptest! {
        #[test]
        fn inserting_anywhere_keeps_keys_strictly_ordered(
            picks in proptest::collection::vec(0usize..1000, 1..200)
        ) {
            let mut keys = vec![between(None, None)];
            for p in picks {
                let gap = p % (keys.len() + 1);
                let a = gap.checked_sub(1).map(|i| keys[i].clone());
                let b = keys.get(gap).cloned();
                let k = between(a.as_deref(), b.as_deref());
                if let Some(a) = &a { prop_assert!(a < &k, "{a} !< {k}"); }
                if let Some(b) = &b { prop_assert!(&k < b, "{k} !< {b}"); }
                let (_, frac) = split(&k);
                prop_assert!(!frac.ends_with('0'));
                keys.insert(gap, k);
            }
        }
    }
}
