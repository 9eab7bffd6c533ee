//! `kubectl port-forward`, run by the launcher (a browser cannot listen):
//! the one schema of what the app asks for and what the launcher answers,
//! so the two cannot drift.
//!
//! The app asks under its token: `GET /glass/forwards` lists the running
//! forwards, `POST` with a [`ForwardRequest`] starts one and answers its
//! [`Forward`], `DELETE /glass/forwards/<id>` stops one. Never in a
//! `--read-only` run; every forward stops with the launcher.

use serde::{Deserialize, Serialize};

use kubeglass_client::names::{NameError, is_subdomain, validate_name, validate_namespace};

/// The path under the token.
pub const FORWARDS_PATH: &str = "/glass/forwards";

/// What a forward reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ForwardKind {
    /// One pod.
    Pod,
    /// A Service (kubectl picks one of its pods, and maps the Service's
    /// port to the pod's).
    Service,
    /// A Deployment (kubectl picks one of its pods).
    Deployment,
}

impl ForwardKind {
    /// kubectl's word for it (`pod/web-1`).
    pub fn word(self) -> &'static str {
        match self {
            ForwardKind::Pod => "pod",
            ForwardKind::Service => "service",
            ForwardKind::Deployment => "deployment",
        }
    }
}

/// A forward the app asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForwardRequest {
    /// The namespace.
    pub namespace: String,
    /// Pod, Service or Deployment.
    pub kind: ForwardKind,
    /// Its name.
    pub name: String,
    /// The port on it (for a Service, the Service's port).
    pub port: u16,
}

impl ForwardRequest {
    /// The namespace a DNS-1123 label, the name a DNS-1123 subdomain (what
    /// pods, Services and Deployments are named), the port not 0: they
    /// become kubectl's arguments.
    pub fn validate(&self) -> Result<(), ForwardError> {
        validate_namespace(&self.namespace).map_err(ForwardError::Name)?;
        validate_name(&self.name).map_err(ForwardError::Name)?;
        if !is_subdomain(&self.name) {
            return Err(ForwardError::NotSubdomain(self.name.clone()));
        }
        if self.port == 0 {
            return Err(ForwardError::Port);
        }
        Ok(())
    }

    /// `service/web`, as kubectl names it.
    pub fn target(&self) -> String {
        format!("{}/{}", self.kind.word(), self.name)
    }
}

/// A running forward. (No `deny_unknown_fields`: serde does not apply it
/// with a flattened field; the request's own fields are checked.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Forward {
    /// The launcher's number for it (for Stop).
    pub id: u32,
    /// What it reaches.
    #[serde(flatten)]
    pub request: ForwardRequest,
    /// Where it listens: `127.0.0.1:<port>`.
    pub local: String,
}

/// Why a forward was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForwardError {
    /// A name that cannot be one.
    #[error("{0}")]
    Name(NameError),
    /// Port 0.
    #[error("the port must be between 1 and 65535")]
    Port,
    /// A name no pod, Service or Deployment can have.
    #[error(
        "{0:?} is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'), as pods, Services and Deployments are named"
    )]
    NotSubdomain(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_and_its_checks() {
        let r = ForwardRequest {
            namespace: "shop".into(),
            kind: ForwardKind::Service,
            name: "web".into(),
            port: 80,
        };
        assert_eq!(r.target(), "service/web");
        assert!(r.validate().is_ok());
        let text = serde_json::to_string(&Forward {
            id: 3,
            request: r.clone(),
            local: "127.0.0.1:40001".into(),
        })
        .expect("json");
        assert_eq!(
            text,
            r#"{"id":3,"namespace":"shop","kind":"service","name":"web","port":80,"local":"127.0.0.1:40001"}"#
        );
        for bad in [
            ForwardRequest {
                name: "--address=0.0.0.0".into(),
                ..r.clone()
            },
            ForwardRequest {
                name: "Web".into(),
                ..r.clone()
            },
            ForwardRequest {
                name: "a..b".into(),
                ..r.clone()
            },
            ForwardRequest {
                namespace: "a b".into(),
                ..r.clone()
            },
            ForwardRequest {
                port: 0,
                ..r.clone()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        assert!(
            serde_json::from_str::<ForwardRequest>(
                r#"{"namespace":"a","kind":"node","name":"n","port":1}"#
            )
            .is_err()
        );
    }
}
