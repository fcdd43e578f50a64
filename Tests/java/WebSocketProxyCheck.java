// Java's own java.net.http.WebSocket (the JVM client of Android stacks) through a proxy that wants
// credentials: the CONNECT goes without them, the proxy answers 407 with a Basic challenge, the
// Authenticator answers with the device's scope as the user name, and the socket then talks to a
// message stub in that scope. Arguments: PROXY_HOST PROXY_PORT WSS_URL SCOPE PASSWORD MESSAGE.
// Trusts the CA of the javax.net.ssl.trustStore given on the command line; needs
// -Djdk.http.auth.tunneling.disabledSchemes= (Java turns Basic off for tunnels by default).
// Prints the first message received; exits 1 on an error or when none comes in 20 s.
import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

public class WebSocketProxyCheck {
    public static void main(String[] args) throws Exception {
        String scope = args[3], password = args[4], message = args[5];
        HttpClient client = HttpClient.newBuilder()
            .proxy(ProxySelector.of(new InetSocketAddress(args[0], Integer.parseInt(args[1]))))
            .authenticator(new Authenticator() {
                @Override
                protected PasswordAuthentication getPasswordAuthentication() {
                    if (getRequestorType() != RequestorType.PROXY) return null;
                    return new PasswordAuthentication(scope, password.toCharArray());
                }
            })
            .connectTimeout(Duration.ofSeconds(20))
            .build();
        CompletableFuture<String> received = new CompletableFuture<>();
        WebSocket socket = client.newWebSocketBuilder()
            .buildAsync(URI.create(args[2]), new WebSocket.Listener() {
                @Override
                public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                    received.complete(data.toString());
                    return null;
                }

                @Override
                public void onError(WebSocket webSocket, Throwable error) {
                    received.completeExceptionally(error);
                }
            })
            .get(20, TimeUnit.SECONDS);
        socket.sendText(message, true).get(20, TimeUnit.SECONDS);
        System.out.println(received.get(20, TimeUnit.SECONDS));
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(20, TimeUnit.SECONDS);
    }
}
