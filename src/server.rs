//! The HTTP plumbing `shiplog-api` and `shiplog serve` share: binding an address, serving
//! HTTP/1.1 connections until SIGTERM or Ctrl-C, then letting the requests in flight finish.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use crate::error::{Error, Result};

/// A bound address, ready to serve.
pub(crate) struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    http: hyper::server::conn::http1::Builder,
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
    /// kept-alive connection is closed after as long.
    pub async fn bind(listen: &str, header_read_timeout: Duration) -> Result<Server> {
        let usage = |e: std::io::Error| Error::Usage(format!("cannot listen on {listen}: {e}"));
        let listener = match listen.parse::<SocketAddr>() {
            Ok(addr) => TcpListener::bind(addr).await.map_err(usage)?,
            Err(_)
                if listen
                    .rsplit_once(':')
                    .is_some_and(|(_, port)| port.parse::<u16>().is_ok()) =>
            {
                TcpListener::bind(listen).await.map_err(usage)?
            }
            Err(_) => {
                return Err(Error::Usage(format!(
                    "cannot listen on `{listen}`: give an address and port, like 127.0.0.1:8081"
                )))
            }
        };
        let addr = listener.local_addr().map_err(usage)?;
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(header_read_timeout)
            .keep_alive(true);
        Ok(Server {
            listener,
            addr,
            http,
        })
    }

    /// The address bound (with the port picked, when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers every request with `handle` until `shutdown` brings a signal; then stops
    /// accepting connections. `warn` hears of connections that could not be accepted.
    pub async fn serve<H>(
        self,
        shutdown: &mut Shutdown,
        handle: H,
        warn: &dyn Fn(String),
    ) -> Stopping
    where
        H: Fn(Request<Incoming>) -> Response<Full<Bytes>> + Clone + Send + Sync + 'static,
    {
        let graceful = GracefulShutdown::new();
        let signal = loop {
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
                        async move { Ok::<_, Infallible>(response) }
                    });
                    let connection =
                        graceful.watch(self.http.serve_connection(TokioIo::new(stream), service));
                    tokio::spawn(async move {
                        // Client errors (resets, slow heads) end only that connection.
                        let _ = connection.await;
                    });
                }
            }
        };
        drop(self.listener);
        Stopping { signal, graceful }
    }
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
            let failed = |e| Error::Usage(format!("cannot handle signals: {e}"));
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
