//! The map's routes: `#/map` (the header namespace's map) and
//! `#/map/<resource>/[<namespace>/]<name>?depth=N` (an object's
//! neighbourhood), the depth kept between 1 and 6.

/// The depth an object's map shows when the link names none.
pub const DEFAULT_DEPTH: u8 = 3;
/// The deepest an object's map goes.
pub const MAX_DEPTH: u8 = 6;

/// The object a map is of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapFocus {
    /// Its resource (`deployments.apps`).
    pub resource: String,
    /// Its namespace, none when cluster-scoped.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
}

/// The map route of `parts` (after `map`) and the depth asked, or what
/// is wrong with it.
pub fn parse(parts: &[String], depth: Option<String>) -> Result<(Option<MapFocus>, u8), String> {
    let focus = match parts {
        [] => None,
        [resource, name] => Some(MapFocus {
            resource: resource.clone(),
            namespace: None,
            name: name.clone(),
        }),
        [resource, ns, name] => Some(MapFocus {
            resource: resource.clone(),
            namespace: Some(ns.clone()),
            name: name.clone(),
        }),
        _ => {
            return Err(format!(
                "“map/{}” is not a map link (#/map, or #/map/<resource>/[<namespace>/]<name>)",
                parts.join("/")
            ));
        }
    };
    let depth = match depth {
        None => DEFAULT_DEPTH,
        Some(d) => match d.parse::<u8>() {
            Ok(d) if (1..=MAX_DEPTH).contains(&d) => d,
            _ => {
                return Err(format!(
                    "depth “{d}”: a map's depth is a whole number from 1 to {MAX_DEPTH}"
                ));
            }
        },
    };
    Ok((focus, depth))
}

/// The fragment for a map, `encode` escaping each part.
pub fn href(focus: Option<&MapFocus>, depth: u8, encode: fn(&str) -> String) -> String {
    let Some(f) = focus else {
        return "#/map".into();
    };
    let path = match &f.namespace {
        Some(ns) => format!(
            "#/map/{}/{}/{}",
            encode(&f.resource),
            encode(ns),
            encode(&f.name)
        ),
        None => format!("#/map/{}/{}", encode(&f.resource), encode(&f.name)),
    };
    if depth == DEFAULT_DEPTH {
        path
    } else {
        format!("{path}?depth={depth}")
    }
}
