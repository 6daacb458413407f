package dev.schedulerops.extender.tls;

/** How the verb port is protected: not at all, by a serving certificate, or by one plus a required client certificate. */
public enum TlsMode {
    /** Plain HTTP: anyone who can reach the port can call every verb. */
    disabled,
    /** HTTPS: clients can verify the extender, but any client may call it. */
    server,
    /** HTTPS and a client certificate issued by a trusted CA, checked during the handshake. */
    mutual
}
