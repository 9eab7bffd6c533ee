//! Revealed Secret values: what the person sees after asking, and nothing kept anywhere else.
//!
//! A Secret's page watches its metadata only. "Reveal" GETs the Secret once
//! (the client's only request that may carry Secret data, `Api::reveal`) and
//! turns its data into [`RevealedValue`]s, which live in that page's signal
//! and go when the page does: never in an informer, storage or the URL.

use std::collections::BTreeMap;

use kubeglass_client::k8s_openapi::ByteString;

/// One key of a revealed Secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealedValue {
    /// The key under `data`.
    pub key: String,
    /// The value decoded from base64, when it is UTF-8 text.
    pub text: Option<String>,
    /// Its length in bytes.
    pub bytes: usize,
}

impl RevealedValue {
    /// What to show once the person unmasks it.
    pub fn shown(&self) -> String {
        match &self.text {
            Some(t) => t.clone(),
            None => format!("({} bytes of binary data)", self.bytes),
        }
    }
}

/// What a Reveal brings: the data's values and the annotations' (which the
/// page's metadata cache holds keys of only).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Revealed {
    /// The values under `data`, sorted by key.
    pub values: Vec<RevealedValue>,
    /// Every annotation with its value.
    pub annotations: BTreeMap<String, String>,
}

/// The values of a Secret's `data` (already decoded from base64 by the
/// typed Secret), sorted by key.
pub fn revealed_values(data: Option<&BTreeMap<String, ByteString>>) -> Vec<RevealedValue> {
    data.map(|d| {
        d.iter()
            .map(|(k, v)| RevealedValue {
                key: k.clone(),
                text: String::from_utf8(v.0.clone()).ok(),
                bytes: v.0.len(),
            })
            .collect()
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_values_decode_and_binary_ones_say_their_size() {
        let secret: kubeglass_client::k8s_openapi::api::core::v1::Secret =
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "db"},
                "data": {"password": "aHVudGVyMg==", "blob": "//79"}
            }))
            .expect("secret");
        let values = revealed_values(secret.data.as_ref());
        assert_eq!(
            values,
            [
                RevealedValue {
                    key: "blob".into(),
                    text: None,
                    bytes: 3
                },
                RevealedValue {
                    key: "password".into(),
                    text: Some("hunter2".into()),
                    bytes: 7
                },
            ]
        );
        assert_eq!(values[0].shown(), "(3 bytes of binary data)");
        assert_eq!(values[1].shown(), "hunter2");
        assert!(revealed_values(None).is_empty());
    }
}
