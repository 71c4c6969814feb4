//! The HTTP plumbing `shiplog-api` and `shiplog serve` share: binding an address, serving
//! HTTP/1.1 connections until SIGTERM or Ctrl-C, then letting the requests in flight finish.
//!
//! Hostile clients are bounded here: a request head may be at most [`MAX_HEAD_BYTES`] (431
//! beyond), must arrive within the header read timeout, a write to a client that reads
//! nothing fails after as long (so a connection is never held longer than that without
//! progress), and at most `max_connections` connections are open at once; further ones wait
//! in the listen backlog until one closes.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

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
    /// How long a write to a client may make no progress (the header read timeout).
    write_timeout: Duration,
}

/// The most bytes of requests read ahead of the one being answered (hyper's buffer): with
/// pipelining, the requests waiting on one connection. A head is at most [`MAX_HEAD_BYTES`].
const MAX_READ_AHEAD: usize = 2 * MAX_HEAD_BYTES;

/// A connection whose writes must make progress within a timeout. A client that sends
/// requests (pipelined, thousands at once) but never reads the answers fills its socket
/// until every write blocks; without this, it would hold a connection slot for as long as it
/// liked. A write that stays blocked for the timeout fails, and hyper closes the connection.
struct WriteDeadline<T> {
    inner: T,
    timeout: Duration,
    /// Started when a write first blocked; cleared when one makes progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteDeadline<T> {
    fn new(inner: T, timeout: Duration) -> Self {
        WriteDeadline {
            inner,
            timeout,
            stalled: None,
        }
    }

    /// What a write that did not make progress gives: `Pending`, or an error once it has
    /// been blocked for the timeout.
    fn blocked<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let timeout = self.timeout;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client reads nothing of its answers",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// `result` of a write, with the deadline applied to a blocked one.
    fn progress<R>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        match result {
            Poll::Pending => self.blocked(cx),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl<T: hyper::rt::Read + Unpin> hyper::rt::Read for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: hyper::rt::Write + Unpin> hyper::rt::Write for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.progress(cx, result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.progress(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.inner).poll_flush(cx);
        this.progress(cx, result)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.progress(cx, result)
    }
}

/// A server that stopped accepting connections; the ones open may still be answering.
pub(crate) struct Stopping {
    /// The signal that stopped it.
    pub signal: &'static str,
    graceful: GracefulShutdown,
}

impl Server {
    /// Binds `listen`: an IP address and port, or a host name and port (port 0 picks a free
    /// one). A client has `header_read_timeout` to send a request's head, an idle
    /// kept-alive connection is closed after as long, and so is one whose answers the client
    /// does not read for as long. At most `max_connections` (at least 1)
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
            .max_buf_size(MAX_READ_AHEAD)
            .keep_alive(true);
        Ok(Server {
            listener,
            addr,
            http,
            connection_slots: Arc::new(Semaphore::new(max_connections.max(1))),
            write_timeout: header_read_timeout,
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
                    let io = WriteDeadline::new(TokioIo::new(stream), self.write_timeout);
                    let connection = graceful.watch(self.http.serve_connection(io, service));
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
