//! The browser's own regular expressions (`RegExp`), so a filter's `/pattern/` means what it means in JavaScript, with no regex engine in the wasm.

/// A case-insensitive pattern's test: does a text match?
pub type Regex = Box<dyn Fn(&str) -> bool>;

/// A case-insensitive pattern's matches in a text, as byte ranges (at most
/// 1,001, empty matches skipped).
pub type Finder = Box<dyn Fn(&str) -> Vec<(usize, usize)>>;

/// Compiles `pattern` as a case-insensitive `RegExp` test, or says why it
/// is not one.
pub fn regex(pattern: &str) -> Result<Regex, String> {
    let re = kubeglass_web::js_regexp(pattern, "i")?;
    Ok(Box::new(move |text: &str| re.test(text)))
}

/// Compiles `pattern` as a case-insensitive `RegExp` that finds every match,
/// or says why it is not one.
pub fn finder(pattern: &str) -> Result<Finder, String> {
    let re = kubeglass_web::js_regexp(pattern, "gi")?;
    Ok(Box::new(move |hay: &str| {
        re.set_last_index(0);
        let mut found = Vec::new();
        // Offsets in UTF-16 units, turned into byte offsets.
        let units: Vec<usize> = hay
            .char_indices()
            .flat_map(|(b, c)| std::iter::repeat_n(b, c.len_utf16()))
            .chain(std::iter::once(hay.len()))
            .collect();
        while let Some(m) = re.exec(hay) {
            let start = js_sys::Reflect::get(&m, &"index".into())
                .ok()
                .and_then(|i| i.as_f64())
                .unwrap_or(0.0) as usize;
            let len = m.get(0).as_string().map_or(0, |s| s.encode_utf16().count());
            if len == 0 {
                re.set_last_index(re.last_index() + 1);
                if start >= units.len() - 1 {
                    break;
                }
                continue;
            }
            if let (Some(a), Some(b)) = (units.get(start), units.get(start + len)) {
                found.push((*a, *b));
            }
            if found.len() > 1_000 {
                break;
            }
        }
        found
    }))
}
