package dev.schedulerops.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ApiServerEndpointTest {

    @Test
    void parsesIpv4AndBracketedIpv6AndNamesTheOneAddressAsACidr() {
        ApiServerEndpoint v4 = ApiServerEndpoint.parse("10.0.0.10:6443");
        assertThat(v4).isEqualTo(new ApiServerEndpoint("10.0.0.10", 6443));
        assertThat(v4.cidr()).isEqualTo("10.0.0.10/32");
        assertThat(v4).hasToString("10.0.0.10:6443");
        ApiServerEndpoint v6 = ApiServerEndpoint.parse("[fd00::1]:443");
        assertThat(v6.cidr()).isEqualTo("fd00::1/128");
        assertThat(v6).hasToString("[fd00::1]:443");
    }

    @Test
    void refusesWhatIsNotAnAddressAndAPort() {
        for (String bad : new String[] {"10.0.0.10", "10.0.0.10:", ":6443", "10.0.0.10:https", "10.0.0.10:70000"}) {
            assertThatThrownBy(() -> ApiServerEndpoint.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageMatching("(an API server endpoint is ADDRESS:PORT.*|API server port must be.*)");
        }
    }
}
