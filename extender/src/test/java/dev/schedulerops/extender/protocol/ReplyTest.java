package dev.schedulerops.extender.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplyTest {
    @Test
    void escapesStringsSoAnyJsonReaderGetsThemBack() throws Exception {
        String nasty = "a\"b\\c\nd\te\u0001f é 日本 \uD83D\uDE00 </script>";

        String json = new Reply().string(nasty).toString();

        assertThat(new ObjectMapper().readValue(json, String.class)).isEqualTo(nasty);
    }

    @Test
    void shortRawRunsAreCopiedLongOnesReferencedFromTheSource() {
        byte[] source = new byte[Reply.REFERENCE_THRESHOLD * 3];
        Arrays.fill(source, (byte) 'x');

        Reply reply = new Reply().ascii("[").raw(source, 0, 10).ch(',');
        reply.raw(source, 100, 100 + Reply.REFERENCE_THRESHOLD * 2).ascii("]");

        List<ByteBuffer> segments = reply.segments();
        assertThat(segments).hasSize(3);
        assertThat(segments.get(0).array()).isNotSameAs(source);
        assertThat(segments.get(1).array()).isSameAs(source);
        assertThat(reply.length()).isEqualTo(1 + 10 + 1 + Reply.REFERENCE_THRESHOLD * 2 + 1);
        String text = new String(reply.toByteArray(), StandardCharsets.US_ASCII);
        assertThat(text).startsWith("[xxxxxxxxxx,xxx").endsWith("x]");
    }

    @Test
    void growsPastItsInitialCapacity() {
        Reply reply = new Reply(16);
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            reply.number(i).ch(',');
            expected.append(i).append(',');
        }
        assertThat(reply.toString()).isEqualTo(expected.toString());
    }
}
