package dev.schedulerops.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.model.ApiServerEndpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import org.junit.jupiter.api.Test;

/** Where pods reach the API server, read from the kubernetes Service's EndpointSlice as the API server writes it. */
class OwnedInformersApiServerTest {

    @Test
    void everyAddressOfTheSliceWithItsPort() {
        var slice = new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("kubernetes")
                .withNamespace("default")
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.0.0.11")
                .endEndpoint()
                .addNewEndpoint()
                .withAddresses("10.0.0.12")
                .endEndpoint()
                .addNewPort()
                .withName("https")
                .withPort(6443)
                .withProtocol("TCP")
                .endPort()
                .build();
        assertThat(OwnedInformers.endpointsOf(slice))
                .containsExactly(new ApiServerEndpoint("10.0.0.11", 6443), new ApiServerEndpoint("10.0.0.12", 6443));
    }

    @Test
    void aSliceWithoutEndpointsOrPortsGivesNothing() {
        var empty = new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("kubernetes")
                .endMetadata()
                .withAddressType("IPv4")
                .build();
        assertThat(OwnedInformers.endpointsOf(empty)).isEmpty();
    }
}
