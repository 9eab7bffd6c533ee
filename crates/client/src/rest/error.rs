//! The one error enum of REST calls.

use super::{ApiError, DecodeError};
use crate::transport::TransportError;

/// Everything a REST call can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The request never got an answer (retryable).
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The API server answered with an error status (boxed: a `Status` is large).
    #[error(transparent)]
    Api(Box<ApiError>),
    /// The answer could not be decoded into the expected type.
    #[error("cannot decode the server's response: {0}")]
    Decode(String),
    /// A watch event could not be decoded (the watch should be restarted).
    #[error(transparent)]
    WatchDecode(#[from] DecodeError),
    /// The request could not be built from the given parameters.
    #[error("cannot build the request: {0}")]
    Request(String),
    /// A namespace, name or resource cannot be part of a request path
    /// (not retryable: the string itself is wrong).
    #[error(transparent)]
    InvalidName(#[from] crate::names::NameError),
    /// The request would have fetched a Secret's data, which is read only
    /// through [`crate::api::Api::reveal`] when a person asks (not retryable).
    #[error("refused to fetch Secret data for {0}: it is read only when revealed")]
    SecretData(String),
}

impl Error {
    /// The API error, if the server answered with one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(e) => Some(e),
            _ => None,
        }
    }

    /// True when the server could not be reached at all.
    pub fn is_connect(&self) -> bool {
        matches!(self, Error::Transport(TransportError::Connect(_)))
    }
}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        Error::Api(Box::new(e))
    }
}

impl From<kube_core::request::Error> for Error {
    fn from(e: kube_core::request::Error) -> Self {
        Error::Request(e.to_string())
    }
}
