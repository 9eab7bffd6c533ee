//! The browser's regular expressions, built so that a bad pattern is an error to show rather than a thrown exception.

use wasm_bindgen::JsCast;

/// `new RegExp(pattern, flags)`, or the browser's words for why `pattern`
/// is not one (`js_sys::RegExp::new` would throw instead).
pub fn js_regexp(pattern: &str, flags: &str) -> Result<js_sys::RegExp, String> {
    let ctor = js_sys::Reflect::get(&js_sys::global(), &"RegExp".into())
        .map_err(|_| "no RegExp".to_string())?;
    let args = js_sys::Array::of2(&pattern.into(), &flags.into());
    let re = js_sys::Reflect::construct(ctor.unchecked_ref::<js_sys::Function>(), &args).map_err(
        |e| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| "invalid regular expression".into())
        },
    )?;
    Ok(re.unchecked_into())
}
