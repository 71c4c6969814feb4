//! The HTTP plumbing `shiplog-api` and `shiplog serve` share: binding an address, serving
//! HTTP/1.1 connections until SIGTERM or Ctrl-C, then letting the requests in flight finish.
//!
//! Hostile clients are bounded here: a request head may be at most [`MAX_HEAD_BYTES`] (431
//! beyond), must arrive within the header read timeout, and at most `max_connections`
//! connections are open at once; further ones wait in the listen backlog until one closes.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::Semaphore;

use crate::error::{Error, Result};

/// The largest request head (request line and headers) accepted, in bytes; a larger one is
/// answered 431 and the connection closed. With the connection limit, it bounds the memory
/// that clients sending heads can hold.
pub const MAX_HEAD_BYTES: usize = 32 * 1024;

/// Connections open at once when the settings do not say.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// A response before the request's method decides whether it gets a body: what both
/// servers' handlers answer.
pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    /// A reply with no `Content-Type` (a 304, say).
    pub fn empty(status: StatusCode) -> Self {
        Reply {
            status,
            headers: HeaderMap::new(),
            body: Bytes::new(),
        }
    }

    /// A reply of `body`, of type `content_type`.
    pub fn new(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        Reply {
            status,
            headers,
            body: body.into(),
        }
    }

    /// Sets header `name`; a value that cannot be a header value is left out.
    pub fn header(&mut self, name: HeaderName, value: &str) {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.headers.insert(name, value);
        }
    }

    /// Whether its `Content-Type` is `content_type`.
    pub fn is(&self, content_type: &str) -> bool {
        self.headers
            .get(header::CONTENT_TYPE)
            .is_some_and(|value| value == content_type)
    }

    /// The response to a request made with `method`: a `Content-Length` (but on a 304,
    /// which describes the representation it stands for), and the body unless `HEAD`.
    pub fn into_response(self, method: &Method) -> Response<Full<Bytes>> {
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = self.status;
        *response.headers_mut() = self.headers;
        if self.status != StatusCode::NOT_MODIFIED {
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(self.body.len()));
            if method != Method::HEAD {
                *response.body_mut() = Full::new(self.body);
            }
        }
        response
    }
}

/// A bound address, ready to serve.
pub(crate) struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    http: hyper::server::conn::http1::Builder,
    connection_slots: Arc<Semaphore>,
}

/// A server that stopped accepting connections; the ones open may still be answering.
pub(crate) struct Stopping {
    /// The signal that stopped it.
    pub signal: &'static str,
    graceful: GracefulShutdown,
}

impl Server {
    /// Binds `listen`: an IP address and port, or a host name and port (port 0 picks a free
    /// one). A client has `header_read_timeout` to send a request's head, and an idle
    /// kept-alive connection is closed after as long. At most `max_connections` (at least 1)
    /// are served at once: more wait, unaccepted, in the listen backlog.
    pub async fn bind(
        listen: &str,
        header_read_timeout: Duration,
        max_connections: usize,
    ) -> Result<Server> {
        let usage = |e: std::io::Error| Error::Usage(format!("cannot listen on {listen}: {e}"));
        let addrs: Vec<SocketAddr> = match listen.parse::<SocketAddr>() {
            Ok(addr) => vec![addr],
            Err(_)
                if listen
                    .rsplit_once(':')
                    .is_some_and(|(_, port)| port.parse::<u16>().is_ok()) =>
            {
                tokio::net::lookup_host(listen)
                    .await
                    .map_err(usage)?
                    .collect()
            }
            Err(_) => {
                return Err(Error::Usage(format!(
                    "cannot listen on `{listen}`: give an address and port, like 127.0.0.1:8081"
                )))
            }
        };
        let mut last_error = None;
        let mut bound = None;
        for addr in addrs {
            match listen_on(addr) {
                Ok(listener) => {
                    bound = Some(listener);
                    break;
                }
                Err(e) => last_error = Some(e),
            }
        }
        let listener = match (bound, last_error) {
            (Some(listener), _) => listener,
            (None, Some(e)) => return Err(usage(e)),
            (None, None) => {
                return Err(Error::Usage(format!(
                    "cannot listen on {listen}: the name has no address"
                )))
            }
        };
        let addr = listener.local_addr().map_err(usage)?;
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(header_read_timeout)
            .max_header_size(MAX_HEAD_BYTES)
            .keep_alive(true);
        Ok(Server {
            listener,
            addr,
            http,
            connection_slots: Arc::new(Semaphore::new(max_connections.max(1))),
        })
    }

    /// The address bound (with the port picked, when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers every request with `handle` until `shutdown` brings a signal; then stops
    /// accepting connections. `warn` hears of connections that could not be accepted.
    pub async fn serve<H, F>(
        self,
        shutdown: &mut Shutdown,
        handle: H,
        warn: &dyn Fn(String),
    ) -> Stopping
    where
        H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
        F: Future<Output = Response<Full<Bytes>>> + Send + 'static,
    {
        let graceful = GracefulShutdown::new();
        let signal = loop {
            // A free slot first: while every slot is taken, new connections wait in the
            // kernel's backlog, costing this process nothing.
            let slot = tokio::select! {
                signal = shutdown.next() => break signal,
                slot = self.connection_slots.clone().acquire_owned() => {
                    slot.expect("the semaphore is never closed")
                }
            };
            tokio::select! {
                signal = shutdown.next() => break signal,
                accepted = self.listener.accept() => {
                    let (stream, _peer) = match accepted {
                        Ok(accepted) => accepted,
                        Err(e) => {
                            warn(format!("accepting a connection failed: {e}"));
                            // Out of file descriptors and the like: give it a moment to clear.
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let handle = handle.clone();
                    let service = hyper::service::service_fn(move |request| {
                        let response = handle(request);
                        async move { Ok::<_, Infallible>(response.await) }
                    });
                    let connection =
                        graceful.watch(self.http.serve_connection(TokioIo::new(stream), service));
                    tokio::spawn(async move {
                        // Client errors (resets, slow heads) end only that connection.
                        let _ = connection.await;
                        drop(slot);
                    });
                }
            }
        };
        drop(self.listener);
        Stopping { signal, graceful }
    }
}

/// Connections the kernel holds, accepted by the client but not yet by the server, while every
/// connection slot is taken (the standard library's 128 is soon full).
const LISTEN_BACKLOG: u32 = 1024;

/// A listening socket on `addr` (with `SO_REUSEADDR`, like the standard library's).
fn listen_on(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

impl Stopping {
    /// Waits for the open connections to finish their requests, for up to `timeout` or
    /// until another signal; whether they all did.
    pub async fn drain(self, shutdown: &mut Shutdown, timeout: Duration) -> bool {
        tokio::select! {
            _ = self.graceful.shutdown() => true,
            _ = tokio::time::sleep(timeout) => false,
            _ = shutdown.next() => false,
        }
    }
}

/// SIGTERM and Ctrl-C (SIGINT).
pub(crate) struct Shutdown {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
}

impl Shutdown {
    /// Starts listening for the signals, so that none sent from now on is lost.
    pub fn new() -> Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let failed = |e| Error::Internal(format!("cannot handle signals: {e}"));
            Ok(Shutdown {
                terminate: signal(SignalKind::terminate()).map_err(failed)?,
                interrupt: signal(SignalKind::interrupt()).map_err(failed)?,
            })
        }
        #[cfg(not(unix))]
        Ok(Shutdown {})
    }

    /// Waits for the next signal and names it.
    pub async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.terminate.recv() => "SIGTERM",
                _ = self.interrupt.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}
