//! The source lines a shim's README cites: each runtime's README says
//! where in the runtime's own code its behaviour comes from
//! (`node_modules/ai/dist/index.js:5566`, `tool_node.py:850-882`), and the
//! runtime's page lists those places with the README line that cites them,
//! so a reader of a failing cell goes straight to the runtime's code.

/// A README line that cites source lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    /// Its line in the README, from 1.
    pub line: usize,
    /// The places it cites, as written (`index.js:3923`, `base.py:1010-1136`).
    pub places: Vec<String>,
    /// The line's text, without Markdown's list and quote marks.
    pub text: String,
}

/// The extensions of the source files a README cites.
const SOURCES: [&str; 8] = [".js", ".mjs", ".cjs", ".ts", ".mts", ".py", ".rs", ".go"];

/// Every line of `readme` that cites a source line, in order.
pub fn cited(readme: &str) -> Vec<Citation> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in readme.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let places = places(line);
        if places.is_empty() {
            continue;
        }
        let text = line
            .trim()
            .trim_start_matches(['-', '*', '>', '|'])
            .trim()
            .to_string();
        out.push(Citation {
            line: i + 1,
            places,
            text,
        });
    }
    out
}

/// The `file.ext:N` and `file.ext:N-M` of one line.
fn places(line: &str) -> Vec<String> {
    let path_char = |c: char| c.is_ascii_alphanumeric() || "_./@-".contains(c);
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    for (colon, _) in line.match_indices(':') {
        if !bytes.get(colon + 1).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let before = &line[..colon];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| path_char(*c))
            .last()
            .map_or(colon, |(at, _)| at);
        let path = &line[start..colon];
        if !SOURCES.iter().any(|ext| path.ends_with(ext)) || path.len() <= 3 {
            continue;
        }
        let rest = &line[colon + 1..];
        let mut end = rest.bytes().take_while(u8::is_ascii_digit).count();
        // a range: `:850-882`
        let after = &rest[end..];
        if let Some(more) = after.strip_prefix('-') {
            let digits = more.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                end += 1 + digits;
            }
        }
        out.push(format!("{path}:{}", &rest[..end]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_citing_places_is_kept_with_them() {
        let readme = "# Shim\n\nThe loop (`node_modules/ai/dist/index.js:5566`) and\n\
                      - `parseToolCall`, index.js:3923, and `tool_node.py:850-882`.\n\
                      A time of 10:30 and a file.txt:3 are not sources.\n\
                      ```\nnot cited.js:1\n```\n";
        let found = cited(readme);
        assert_eq!(
            found,
            vec![
                Citation {
                    line: 3,
                    places: vec!["node_modules/ai/dist/index.js:5566".into()],
                    text: "The loop (`node_modules/ai/dist/index.js:5566`) and".into(),
                },
                Citation {
                    line: 4,
                    places: vec!["index.js:3923".into(), "tool_node.py:850-882".into()],
                    text: "`parseToolCall`, index.js:3923, and `tool_node.py:850-882`.".into(),
                },
            ]
        );
    }
}
