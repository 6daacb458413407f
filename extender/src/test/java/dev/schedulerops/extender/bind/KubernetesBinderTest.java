package dev.schedulerops.extender.bind;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.schedulerops.extender.protocol.BindingArgs;
import dev.schedulerops.extender.verbs.ExtenderVerbs;
import dev.schedulerops.extender.verbs.ExtenderVerbs.Outcome;
import dev.schedulerops.extender.verbs.Verb;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The binder against a local stand-in for the API server: pods to read ({@code GET .../pods/NAME}) and their
 * {@code binding} subresource.
 */
class KubernetesBinderTest {
    private static final String SCHEDULER = "label-priority";
    /** Generous: a loaded build machine can take seconds for a fresh client's first request. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static final BindingArgs ARGS = new BindingArgs("web 1", "demo", "u-1", "n1");

    private final List<String> requests = new CopyOnWriteArrayList<>();
    /** Pod JSON by the path the API server serves it at. */
    private final Map<String, String> pods = new ConcurrentHashMap<>();

    private HttpServer apiServer;
    private volatile int podStatus = 0;
    private volatile int bindingStatus = 201;
    private volatile String bindingReply = "{}";

    @BeforeEach
    void start() throws IOException {
        pod("demo", "web%201", "u-1", SCHEDULER);
        apiServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        apiServer.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getRawPath();
            requests.add(exchange.getRequestMethod() + " " + path + " " + new String(body, StandardCharsets.UTF_8));
            int status;
            String reply;
            if (path.endsWith("/binding")) {
                status = bindingStatus;
                reply = bindingReply;
            } else if (podStatus != 0) {
                status = podStatus;
                reply = "{\"kind\":\"Status\",\"message\":\"pods is forbidden\",\"code\":" + podStatus + "}";
            } else if (pods.containsKey(path)) {
                status = 200;
                reply = pods.get(path);
            } else {
                status = 404;
                reply = "{\"kind\":\"Status\",\"message\":\"pods not found\",\"code\":404}";
            }
            byte[] out = reply.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, out.length == 0 ? -1 : out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        apiServer.start();
    }

    @AfterEach
    void stop() {
        apiServer.stop(0);
    }

    private void pod(String namespace, String encodedName, String uid, String schedulerName) {
        pods.put(
                "/api/v1/namespaces/" + namespace + "/pods/" + encodedName,
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\",\"namespace\":\"" + namespace
                        + "\",\"uid\":\"" + uid + "\"},\"spec\":{\"schedulerName\":\"" + schedulerName
                        + "\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}");
    }

    private static KubernetesClient client(String masterUrl) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(masterUrl)
                .withRequestRetryBackoffLimit(0)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private String apiUrl(String suffix) {
        return "http://127.0.0.1:" + apiServer.getAddress().getPort() + suffix;
    }

    private BindResult bind(BindingArgs args) {
        try (KubernetesClient client = client(apiUrl(""))) {
            return new KubernetesBinder(client, TIMEOUT, SCHEDULER).bind(args);
        }
    }

    private List<String> bindings() {
        return requests.stream().filter(r -> r.startsWith("POST")).toList();
    }

    @Test
    void bindsItsSchedulersPodWithTheUidInTheBindingsMetadata() {
        try (KubernetesClient client = client(apiUrl("//"))) {
            KubernetesBinder binder = new KubernetesBinder(client, TIMEOUT, SCHEDULER);

            assertThat(binder.bind(ARGS)).isInstanceOf(BindResult.Bound.class);
        }
        assertThat(requests).hasSize(2).first().asString().startsWith("GET /api/v1/namespaces/demo/pods/web%201 ");
        assertThat(requests.get(1))
                .startsWith("POST /api/v1/namespaces/demo/pods/web%201/binding {")
                .contains("\"uid\":\"u-1\"")
                .contains("\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\"}");
    }

    @Test
    void warmingUpReadsTheApiServersVersionOnceAndNeverFails() throws Exception {
        try (KubernetesClient client = client(apiUrl("/"))) {
            new KubernetesBinder(client, TIMEOUT, SCHEDULER).warmUp().get(1, TimeUnit.MINUTES);
        }
        assertThat(requests).containsExactly("GET /version ");
        try (KubernetesClient client = client(apiUrl("/"))) {
            new KubernetesBinder(client, TIMEOUT, null).warmUp().get(1, TimeUnit.MINUTES);
        }
        assertThat(requests)
                .as("a binder without a scheduler name binds nothing and warms nothing")
                .hasSize(1);

        apiServer.stop(0);
        try (KubernetesClient client = client(apiUrl(""))) {
            assertThat(new KubernetesBinder(client, TIMEOUT, SCHEDULER).warmUp().get(1, TimeUnit.MINUTES))
                    .as("an API server that does not answer is logged, not thrown")
                    .isNull();
        }
    }

    @Test
    void aPodThatIsNotThisSchedulersIsRefusedWithoutABinding() {
        pod("other", "web%201", "u-1", "default-scheduler");
        pod("demo", "mismatch", "u-real", SCHEDULER);

        BindResult missing = bind(new BindingArgs("nobody", "demo", "u-1", "n1"));
        BindResult otherUid = bind(new BindingArgs("mismatch", "demo", "u-guessed", "n1"));
        BindResult foreign = bind(new BindingArgs("web 1", "other", "u-1", "n1"));

        assertThat(missing).isInstanceOf(BindResult.Refused.class);
        assertThat(((BindResult.Refused) missing).detail()).contains("no such pod");
        assertThat(otherUid).isInstanceOf(BindResult.Refused.class);
        assertThat(((BindResult.Refused) otherUid).detail()).contains("u-real", "u-guessed");
        assertThat(foreign).isInstanceOf(BindResult.Refused.class);
        assertThat(((BindResult.Refused) foreign).detail()).contains("default-scheduler");
        assertThat(bindings()).as("no Binding was created").isEmpty();
    }

    @Test
    void withoutASchedulerNameNoPodIsBoundOrEvenRead() {
        try (KubernetesClient client = client(apiUrl(""))) {
            assertThat(new KubernetesBinder(client, TIMEOUT, null).bind(ARGS)).isInstanceOf(BindResult.Refused.class);
        }
        assertThat(requests).isEmpty();
    }

    /**
     * What the caller sees: one status and one body whether the pod does not exist, has another UID or belongs to
     * another scheduler (here: in a namespace the caller may know nothing of), and nothing of the reason.
     */
    @Test
    void theRefusalsAnswerAlikeAndRevealNoReason() throws Exception {
        pod("other", "web%201", "u-1", "default-scheduler");
        pod("demo", "mismatch", "u-real", SCHEDULER);
        try (KubernetesClient client = client(apiUrl(""))) {
            ExtenderVerbs verbs = new ExtenderVerbs("k", null, new KubernetesBinder(client, TIMEOUT, SCHEDULER));
            Outcome missing = verbs.answer(Verb.BIND, bindArgs("demo", "nobody", "u-1"));
            Outcome otherUid = verbs.answer(Verb.BIND, bindArgs("demo", "mismatch", "u-guessed"));
            Outcome foreign = verbs.answer(Verb.BIND, bindArgs("other", "web 1", "u-1"));

            assertThat(missing.status()).isEqualTo(403);
            assertThat(List.of(otherUid.status(), foreign.status())).containsOnly(403);
            String body = missing.reply().toString();
            assertThat(List.of(otherUid.reply().toString(), foreign.reply().toString()))
                    .containsOnly(body);
            assertThat(body)
                    .contains("binding refused")
                    .doesNotContain("nobody", "other", "u-real", "default-scheduler", "not found");
        }
        assertThat(bindings()).isEmpty();
    }

    private static byte[] bindArgs(String namespace, String name, String uid) {
        return ("{\"PodName\":\"" + name + "\",\"PodNamespace\":\"" + namespace + "\",\"PodUID\":\"" + uid
                        + "\",\"Node\":\"n1\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPodThatCannotBeReadIsNotBoundAndTheLogSaysWhy() {
        podStatus = 403;
        BindResult forbidden = bind(ARGS);
        podStatus = 500;
        BindResult failing = bind(ARGS);

        assertThat(forbidden).isInstanceOf(BindResult.PodUnreadable.class);
        assertThat(((BindResult.PodUnreadable) forbidden).detail()).contains("HTTP 403", "needs get on pods");
        assertThat(failing).isInstanceOf(BindResult.PodUnreadable.class);
        assertThat(bindings()).isEmpty();
    }

    @Test
    void aRefusedBindingOfItsOwnPodCarriesTheStatusMessage() {
        bindingStatus = 409;
        bindingReply = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                + "\"message\":\"pod web 1 is already assigned to node n0\",\"code\":409}";

        assertThat(bind(ARGS))
                .isEqualTo(new BindResult.BindingFailed("binding pod demo/web 1 to node n1 failed: HTTP 409: pod web 1"
                        + " is already assigned to node n0"));
    }

    @Test
    void aRefusedBindingWithoutAStatusCarriesTheBody() {
        bindingStatus = 500;
        bindingReply = "  upstream exploded\n";
        assertThat(bind(ARGS))
                .isEqualTo(new BindResult.BindingFailed(
                        "binding pod demo/web 1 to node n1 failed: HTTP 500: upstream exploded"));

        bindingReply = "";
        assertThat(bind(ARGS))
                .isEqualTo(new BindResult.BindingFailed("binding pod demo/web 1 to node n1 failed: HTTP 500"));
    }

    @Test
    void anUnreachableApiServerIsAFailureNamingTheCause() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        try (KubernetesClient client = client("http://127.0.0.1:" + closedPort)) {
            BindResult result = new KubernetesBinder(client, TIMEOUT, SCHEDULER).bind(ARGS);
            assertThat(result).isInstanceOf(BindResult.PodUnreadable.class);
            assertThat(((BindResult.PodUnreadable) result).detail()).contains("Exception");
        }
    }
}
