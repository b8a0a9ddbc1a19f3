//! Whether a JPEG is whole. JPEG decoders draw what they have and fill the rest of a cut-off
//! file with grey; the file's structure tells a cut-off file from a whole one.

/// Whether `data` (a JPEG) ends where its structure says: every marker segment whole and the
/// last scan followed by the end-of-image marker (what follows that is ignored).
pub(super) fn is_whole(data: &[u8]) -> bool {
    if !data.starts_with(&[0xFF, 0xD8]) {
        return false;
    }
    let mut i = 2;
    loop {
        // A marker: 0xFF, any number of 0xFF fill bytes, then its code. Bytes between
        // segments that are no marker are skipped, as decoders do.
        let Some(at) = data[i..].iter().position(|&b| b == 0xFF) else {
            return false;
        };
        i += at;
        while data.get(i) == Some(&0xFF) {
            i += 1;
        }
        let Some(&code) = data.get(i) else {
            return false;
        };
        i += 1;
        match code {
            0xD9 => return true,                   // end of image
            0x00 | 0x01 | 0xD0..=0xD7 => continue, // no segment: TEM, restarts
            _ => {}
        }
        let Some(length) = data.get(i..i + 2) else {
            return false;
        };
        let length = usize::from(u16::from_be_bytes([length[0], length[1]]));
        if length < 2 || i + length > data.len() {
            return false;
        }
        i += length;
        if code == 0xDA {
            // A scan's coded data runs to the next marker; 0xFF00 is a stuffed 0xFF and
            // restart markers sit inside it.
            loop {
                let Some(at) = data[i..].iter().position(|&b| b == 0xFF) else {
                    return false;
                };
                i += at;
                match data.get(i + 1) {
                    None => return false,
                    Some(0x00 | 0xD0..=0xD7) => i += 2,
                    Some(_) => break,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_whole;

    /// SOI, a comment segment, a scan with a stuffed byte and a restart, EOI.
    const WHOLE: &[u8] = &[
        0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x04, b'h', b'i', 0xFF, 0xDA, 0x00, 0x02, 0x12, 0xFF, 0x00,
        0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xD9,
    ];

    #[test]
    fn a_whole_jpeg_is_whole_and_every_shorter_cut_is_not() {
        assert!(is_whole(WHOLE));
        for cut in 0..WHOLE.len() {
            assert!(!is_whole(&WHOLE[..cut]), "cut at {cut}");
        }
        // Bytes after the end marker are ignored; fill bytes before a marker are allowed.
        let mut trailing = WHOLE.to_vec();
        trailing.extend_from_slice(b"trailer");
        assert!(is_whole(&trailing));
        let mut filled = WHOLE.to_vec();
        filled.insert(WHOLE.len() - 2, 0xFF);
        assert!(is_whole(&filled));
    }

    #[test]
    fn a_segment_longer_than_the_file_is_not_whole() {
        assert!(!is_whole(&[0xFF, 0xD8, 0xFF, 0xE1, 0x10, 0x00, 0xFF, 0xD9]));
        assert!(!is_whole(&[0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01, 0xFF, 0xD9]));
    }
}
