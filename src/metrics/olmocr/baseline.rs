//! Baseline tests: `repeatdetect.py` and `tests.py::BaselineTest`.

use super::*;

/// `RepeatDetector.ngram_repeats`: for n = 1..=`max_ngram_size`, how many times the final
/// n-gram repeats back to back at the end of the text (after collapsing whitespace runs to one
/// space); 0 when the text is shorter than n.
pub(crate) fn ngram_repeats(text: &str, max_ngram_size: usize) -> Vec<usize> {
    let mut result = vec![0usize; max_ngram_size];
    if text.is_empty() {
        return result;
    }
    let collapsed = re_space().replace_all(text, " ");
    let chars: Vec<char> = collapsed.chars().collect();
    for size in 1..=max_ngram_size {
        if chars.len() < size {
            continue;
        }
        let target = &chars[chars.len() - size..];
        let mut count = 0usize;
        let mut pos = chars.len() as i64 - size as i64;
        while pos >= 0 {
            let p = pos as usize;
            if &chars[p..p + size] == target {
                count += 1;
                pos -= size as i64;
            } else {
                break;
            }
        }
        result[size - 1] = count;
    }
    result
}

static_regex!(re_image_tag, r"!\[.*?\]\(.*?\)");

fn is_disallowed(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}'
        | '\u{3040}'..='\u{309f}'
        | '\u{30a0}'..='\u{30ff}'
        | '\u{1f600}'..='\u{1f64f}'
        | '\u{1f300}'..='\u{1f5ff}'
        | '\u{1f680}'..='\u{1f6ff}'
        | '\u{1f1e0}'..='\u{1f1ff}')
}

impl BaselineTest {
    pub(super) fn run(&self, content: &str) -> (bool, String) {
        let mut len = content.chars().filter(|&c| py_isalnum(c)).count();
        if let Some(max_length) = self.max_length {
            if self.max_length_skips_image_alt_tags {
                let stripped = re_image_tag().replace_all(content, "");
                len = stripped.chars().filter(|&c| py_isalnum(c)).count();
            }
            if len as i64 > max_length {
                return (
                    false,
                    format!("{len} characters were output for a page we expected to be blank"),
                );
            }
            return (true, String::new());
        }
        if len == 0 {
            return (false, "The text contains no alpha numeric characters".to_string());
        }
        for (i, &count) in ngram_repeats(content, 5).iter().enumerate() {
            if count as i64 > self.max_repeats {
                return (
                    false,
                    format!("Text ends with {count} repeating {}-grams, invalid", i + 1),
                );
            }
        }
        let bad: Vec<char> = content.chars().filter(|&c| is_disallowed(c)).collect();
        if self.check_disallowed_characters && !bad.is_empty() {
            let list: Vec<String> = bad.iter().map(|c| format!("'{c}'")).collect();
            return (false, format!("Text contains disallowed characters [{}]", list.join(", ")));
        }
        (true, String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_detector_reference_cases() {
        assert_eq!(ngram_repeats("a", 3), vec![1, 0, 0]);
        assert_eq!(ngram_repeats("abab", 3), vec![1, 2, 1]);
        assert_eq!(ngram_repeats("aabaabaa", 3), vec![2, 1, 2]);
        assert_eq!(ngram_repeats("", 3), vec![0, 0, 0]);
        assert_eq!(ngram_repeats("abcabcabcabc", 5), vec![1, 1, 4, 1, 1]);
        assert_eq!(ngram_repeats("αβγαβγ", 3), vec![1, 1, 2]);
        assert_eq!(ngram_repeats("ababababab", 4), vec![1, 5, 1, 2]);
    }

    #[test]
    fn baseline_thresholds() {
        let b = default_baseline("x.pdf");
        assert!(passes(&b, "hello"));
        assert!(!passes(&b, "  ... "));
        // 30 repeats of the final 1-gram pass, 31 fail.
        assert!(passes(&b, &format!("x{}", "a".repeat(30))));
        assert!(!passes(&b, &format!("x{}", "a".repeat(31))));
        assert!(!passes(&b, "text 中"));
        let blank = t(r#"{"pdf":"a.pdf","page":1,"id":"b","type":"baseline","max_length":3}"#);
        assert!(passes(&blank, "ab c"));
        assert!(!passes(&blank, "ab cd"));
        let alt = t(
            r#"{"pdf":"a.pdf","page":1,"id":"b","type":"baseline","max_length":3,"max_length_skips_image_alt_tags":true}"#,
        );
        assert!(passes(&alt, "![long alt text](img.png) ab"));
    }
}
