//! The machinery behind `pages!` (the one table in `pages/mod.rs`): from
//! each entry it derives the page's module, its part of the wasm and the
//! split point that loads it, the route it is drawn for, and its link in
//! the top bar. Adding a page is adding an entry; nothing here changes.

/// When a page's link is in the top bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Always.
    Always,
    /// When the person may create something in the namespace (a rules
    /// review, asked again when the namespace changes).
    MayCreate,
    /// When `kubectl glass` serves the session and it may write (the
    /// launcher runs what the page cannot: port-forwards).
    Launcher,
}

/// A page's link in the top bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavEntry {
    /// The page's name, its route (`#/<name>`).
    pub name: &'static str,
    /// The link's text.
    pub label: &'static str,
    /// The link's test id.
    pub testid: &'static str,
    /// When it is shown.
    pub guard: Guard,
}

/// Declares every page of a part of its own. Two lists:
///
/// - `routed`: pages whose route carries values (`Route::Resource {…}`),
///   parsed by `route.rs`; the entry names the variant and the fields the
///   page's component takes.
/// - `named`: pages with a name and nothing else (`#/<name>`); the entry
///   gives the name and, optionally, the top bar's link.
///
/// Each entry: `Part: module::Component in split / preload`, where `split`
/// is the name of the wasm part (and of its `#[wasm_split]` function) and
/// `preload` the loader the macro of that name makes.
macro_rules! pages {
    (
        routed {
            $(
                $(#[$rdoc:meta])*
                $rpart:ident: $rmod:ident :: $rcomp:ident in $rsplit:ident / $rpreload:ident
                for $rvariant:ident { $($field:ident: $ty:ty),* $(,)? };
            )*
        }
        named {
            $(
                $(#[$ndoc:meta])*
                $npart:ident: $nmod:ident :: $ncomp:ident in $nsplit:ident / $npreload:ident
                at $name:literal $(nav($label:literal, $testid:literal, $guard:ident))?;
            )*
        }
    ) => {
        $(pub mod $rmod;)*
        $(pub mod $nmod;)*

        /// A part of the wasm beside the main one, one per page (a part's
        /// discriminant is its place in [`ALL`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Part {
            $($(#[$rdoc])* $rpart,)*
            $($(#[$ndoc])* $npart,)*
        }

        /// Every part, in declaration order.
        pub const ALL: &[Part] = &[$(Part::$rpart,)* $(Part::$npart,)*];

        /// The name of every page of the `named` list, in order.
        pub const NAMED: &[&str] = &[$($name,)*];

        /// The route variant of every page of the `routed` list, in order.
        #[cfg(test)]
        pub const ROUTED: &[&str] = &[$(stringify!($rvariant),)*];

        /// The top bar's links to pages, in order.
        pub const NAV: &[$crate::pages::table::NavEntry] = &[
            $($($crate::pages::table::NavEntry {
                name: $name,
                label: $label,
                testid: $testid,
                guard: $crate::pages::table::Guard::$guard,
            },)?)*
        ];

        impl Part {
            /// The part a route's page is in, or none for the main
            /// module's pages (and for a name no page has).
            pub fn of(route: &crate::route::Route) -> Option<Part> {
                use crate::route::Route;
                match route {
                    $(Route::$rvariant { .. } => Some(Part::$rpart),)*
                    Route::Page(name) => match name.as_str() {
                        $($name => Some(Part::$npart),)*
                        _ => None,
                    },
                    _ => None,
                }
            }

            /// Fetches the part's wasm, once; later calls are answered at once.
            async fn fetch(self) -> Result<(), leptos::wasm_split::SplitLoaderError> {
                match self {
                    $(Part::$rpart => split::$rpreload().await,)*
                    $(Part::$npart => split::$npreload().await,)*
                }
            }
        }

        /// Draws the page of `route` if one of the table's pages is it,
        /// through its part (see `parts::Parts::show`); `None` otherwise.
        pub fn show(parts: $crate::pages::parts::Parts, route: crate::route::Route) -> Option<leptos::prelude::AnyView> {
            use crate::route::Route;
            Some(match route {
                $(Route::$rvariant { $($field,)* .. } => {
                    parts.show(Part::$rpart, move || split::$rsplit($($field),*))
                })*
                Route::Page(name) => match name.as_str() {
                    $($name => parts.show(Part::$npart, split::$nsplit),)*
                    _ => return None,
                },
                _ => return None,
            })
        }

        /// The split points: each is cut, with what only it reaches, into
        /// the part of the same name. The split macro's loaders are statics
        /// built with `unsafe` (its contract is the JS loader's: one
        /// callback per call); nothing else here is unsafe.
        #[allow(unsafe_code)]
        mod split {
            use leptos::prelude::*;
            use leptos::wasm_split::{SplitLoaderError, wasm_split};
            $(
                #[wasm_split($rsplit, wasm_split_path = ::leptos::wasm_split, fallible, preload($rpreload))]
                pub fn $rsplit($($field: $ty),*) -> Result<AnyView, SplitLoaderError> {
                    use super::$rmod::$rcomp;
                    Ok(view! { <$rcomp $($field)*/> }.into_any())
                }
            )*
            $(
                #[wasm_split($nsplit, wasm_split_path = ::leptos::wasm_split, fallible, preload($npreload))]
                pub fn $nsplit() -> Result<AnyView, SplitLoaderError> {
                    use super::$nmod::$ncomp;
                    Ok(view! { <$ncomp/> }.into_any())
                }
            )*
        }
    };
}

pub(crate) use pages;
