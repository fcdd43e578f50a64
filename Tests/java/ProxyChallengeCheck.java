// Java's own HttpClient as an Android network stack would use a proxy that wants credentials:
// the first CONNECT goes without them, the proxy answers 407 with a Basic challenge, and the
// Authenticator answers with the device's scope as the user name. Arguments: PROXY_HOST
// PROXY_PORT URL SCOPE PASSWORD. Trusts the CA of the javax.net.ssl.trustStore given on the command
// line; needs -Djdk.http.auth.tunneling.disabledSchemes= (Java turns Basic off for tunnels by
// default). Prints the status and the body; exits 1 on an error.
import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

public class ProxyChallengeCheck {
    public static void main(String[] args) throws Exception {
        String scope = args[3], password = args[4];
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
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(args[2])).timeout(Duration.ofSeconds(20)).build(),
            HttpResponse.BodyHandlers.ofString());
        System.out.println(answer.statusCode());
        System.out.println(answer.body());
    }
}
