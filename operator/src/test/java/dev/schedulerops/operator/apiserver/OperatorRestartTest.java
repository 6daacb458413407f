package dev.schedulerops.operator.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.reconcile.OwnedInformers;
import dev.schedulerops.operator.reconcile.OwnedKind;
import dev.schedulerops.operator.reconcile.ProfileStatuses;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An operator that starts on profiles another one rolled out (a restart, a new leader, the replacement of an evicted
 * pod) finds every object in its caches and writes nothing. Before, the informer of a kind watched in two namespaces
 * (the RoleBindings: the workload namespace and kube-system) shared one cache between its two namespaces' informers,
 * and the second initial list dropped what the first had stored: the new operator re-applied the missing RoleBinding
 * at every reconcile, with a {@code Created} Event each time (seen in the real-node drain).
 */
@ExtendWith(ApiServerTier.class)
class OperatorRestartTest {

    @Test
    void anOperatorStartedOnARunningProfileCachesAllItsObjectsAndWritesNothing(Tier tier) {
        String p = tier.name("p");
        Map<String, String> ownedBy;
        try (OwnOperator first = OwnOperator.start(tier, Map.of())) {
            ownedBy = first.profileLabels();
            tier.extenderAvailable("p", true);
            tier.schedulerAvailable("p", true);
            tier.createProfile("p", "labelKey: restart.example/rank", ownedBy);
            Eventually.until(
                    "p is Ready",
                    () -> tier.hasCondition("p", ProfileStatuses.READY, "True", ProfileStatuses.REASON_AVAILABLE),
                    () -> tier.conditions("p"));
        }
        Names names = tier.names("p");
        for (String namespace : List.of(tier.namespace(), Names.KUBE_SYSTEM)) {
            assertThat(tier.client()
                            .rbac()
                            .roleBindings()
                            .inNamespace(namespace)
                            .withLabel(Labels.PROFILE, p)
                            .list()
                            .getItems())
                    .as("p's RoleBindings in %s", namespace)
                    .isNotEmpty();
        }

        long mark = AuditLog.size();
        try (OwnOperator second = OwnOperator.start(tier, Map.of())) {
            Eventually.until(
                    "the second operator reconciled p and has nothing left to do",
                    () -> {
                        List<String> metrics = second.metrics();
                        return metrics.contains("schedulerops_profile_ready{schedulerprofile=\"" + p + "\"} 1.0")
                                && OwnOperator.value(metrics, "schedulerops_reconciles_running")
                                        .equals(Optional.of(0.0))
                                && OwnOperator.value(metrics, "schedulerops_reconcile_queue_depth")
                                        .equals(Optional.of(0.0));
                    },
                    second::metrics);
            // The operators here run as the tier's admin, as does the fake Deployment controller, which writes only
            // the Deployments' status; the test itself only reads meanwhile.
            assertThat(AuditLog.since(mark).stream()
                            .filter(r -> BareApiServer.ADMIN_USER.equals(r.user())
                                    && r.write()
                                    && r.about(tier.id())
                                    && !(r.resource().equals("deployments")
                                            && r.subresource().equals("status")))
                            .map(AuditLog.Request::toString)
                            .toList())
                    .as(
                            "what the second operator wrote on reconciling %s (objects %s, %s)",
                            p, names.scheduler(), names.authReaderBinding())
                    .isEmpty();

            assertThat(informerLists(mark))
                    .as("the second operator's informers' initial lists (each kind it owns, its profiles, nodes, pods)")
                    .hasSizeGreaterThanOrEqualTo(OwnedKind.values().length + 3)
                    .allSatisfy(uri -> assertThat(queryParameter(uri, "limit"))
                            .as("the page size of %s", uri)
                            .contains(String.valueOf(OwnedInformers.LIST_PAGE_SIZE)));

            tier.profile("p").delete();
            Eventually.until("p is torn down", () -> tier.profile("p").get() == null);
        }
    }

    /**
     * The request URIs of the informers' lists after {@code offset}: a list (not a watch) that selects on the
     * managed-by label or this operator's profile label, or lists nodes. The tier's fake controllers list only at
     * their own start, without a selector, and never nodes. The two informers that select by field list unpaged on
     * purpose (see {@link OwnedInformers#LIST_PAGE_SIZE}) and are left out.
     */
    private static List<String> informerLists(long offset) {
        return AuditLog.since(offset).stream()
                .filter(r -> BareApiServer.ADMIN_USER.equals(r.user())
                        && r.verb().equals("list")
                        && (r.resource().equals("nodes")
                                || r.uri().contains(urlEncoded(Labels.MANAGED_BY))
                                || r.uri().contains(urlEncoded(ApiServerTier.OWN_OPERATOR))))
                .map(AuditLog.Request::uri)
                .toList();
    }

    private static Optional<String> queryParameter(String uri, String name) {
        int query = uri.indexOf('?');
        return query < 0
                ? Optional.empty()
                : Arrays.stream(uri.substring(query + 1).split("&"))
                        .filter(pair -> pair.startsWith(name + "="))
                        .map(pair -> pair.substring(name.length() + 1))
                        .findFirst();
    }

    private static String urlEncoded(String labelKey) {
        return URLEncoder.encode(labelKey, StandardCharsets.UTF_8);
    }
}
