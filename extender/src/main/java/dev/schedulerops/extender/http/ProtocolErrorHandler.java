package dev.schedulerops.extender.http;

import dev.schedulerops.extender.protocol.Replies;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the requests Jetty refuses before they reach {@link ExtenderHandler} (malformed request lines and headers,
 * oversized headers or URIs) the way the extender answers everything else: a JSON body {@code {"error":"..."}}, and a
 * 4xx. An unsupported HTTP version is the client's error too, so Jetty's 505 becomes 400: the extender's contract is
 * that bad input never gets a 5xx.
 */
final class ProtocolErrorHandler extends ErrorHandler {

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        int status = code == HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505 ? HttpStatus.BAD_REQUEST_400 : code;
        String reason = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
        if (code == HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505) {
            reason = "unsupported HTTP version (" + reason + ")";
        }
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(Replies.httpError(reason).toByteArray()), callback);
    }
}
