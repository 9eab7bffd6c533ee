//! One-off reads a page asks for besides its watches: the first page of a table while its informer lists, and a Secret's values when the person reveals them.

use kubeglass_client::api::Api;
use kubeglass_client::discovery::ResourceInfo;
use kubeglass_client::kube_core::DynamicObject;
use kubeglass_client::kube_core::params::ListParams;
use kubeglass_client::rest::table::{TableColumn, TableRowObject};
use kubeglass_client::typed::SecretsApi;

use crate::kube::Kube;
use crate::rules::live_rows::More;
use crate::rules::problem::Problem;
use crate::rules::secrets::{Revealed, revealed_values};

/// Rows read in one page to show at once while the informer's first list
/// (the whole collection in one piece) is under way.
const PREVIEW_ROWS: u32 = 100;

/// One page of a table, read straight from etcd.
pub struct Preview {
    /// kubectl's columns.
    pub columns: Vec<TableColumn>,
    /// The rows.
    pub rows: Vec<TableRowObject>,
    /// What follows them.
    pub more: More,
}

/// The first [`PREVIEW_ROWS`] rows of `info` in `namespace`, with the
/// table's selectors.
pub async fn preview_page(
    kube: &Kube,
    info: &ResourceInfo,
    namespace: Option<&str>,
    labels: Option<String>,
    fields: Option<String>,
) -> Result<Preview, Problem> {
    let api = Api::<DynamicObject>::dynamic(
        kube.client.clone(),
        &info.api_resource(),
        namespace.filter(|_| info.namespaced),
    );
    let mut params = ListParams::default().limit(PREVIEW_ROWS);
    params.label_selector = labels;
    params.field_selector = fields;
    let page = api
        .list_table_rows(&params)
        .await
        .map_err(|e| Problem::from_error(&e))?;
    let more = match page.metadata.remaining_item_count {
        Some(n) => More::Count(n),
        None if page
            .metadata
            .continue_
            .as_deref()
            .is_some_and(|c| !c.is_empty()) =>
        {
            More::Unknown
        }
        None => More::Count(0),
    };
    Ok(Preview {
        columns: page.column_definitions,
        rows: page.rows,
        more,
    })
}

/// The values of the Secret `name` in `namespace`, its annotations' with
/// them: the client's only read that may carry Secret data
/// (`Api::reveal`), made when a person asks.
pub async fn reveal_secret(
    kube: &Kube,
    namespace: Option<&str>,
    name: &str,
) -> Result<Revealed, Problem> {
    SecretsApi::new(kube.client.clone(), namespace)
        .reveal(name)
        .await
        .map(|s| Revealed {
            values: revealed_values(s.data.as_ref()),
            annotations: s.metadata.annotations.unwrap_or_default(),
        })
        .map_err(|e| Problem::from_error(&e))
}
