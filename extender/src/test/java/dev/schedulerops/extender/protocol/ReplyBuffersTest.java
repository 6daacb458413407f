package dev.schedulerops.extender.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReplyBuffersTest {
    @Test
    void anArrayGivenBackServesTheNextReplyThatFitsIt() {
        ReplyBuffers buffers = new ReplyBuffers(2);
        byte[] first = buffers.take(1000);
        assertThat(first.length).isGreaterThanOrEqualTo(1000);

        buffers.give(first);

        assertThat(buffers.take(900)).isSameAs(first);
        assertThat(buffers.take(900)).as("it was taken: a new one").isNotSameAs(first);
    }

    @Test
    void anArrayTooShortIsNotTakenAndAFullPoolKeepsTheLongerArrays() {
        ReplyBuffers buffers = new ReplyBuffers(1);
        byte[] shorter = new byte[100];
        byte[] longer = new byte[5000];
        buffers.give(shorter);

        assertThat(buffers.take(4000)).as("too short").isNotSameAs(shorter);

        buffers.give(longer);
        assertThat(buffers.take(4000)).as("the longer one replaced the shorter").isSameAs(longer);
    }

    @Test
    void arraysOverTheLimitAreNotKept() {
        ReplyBuffers buffers = new ReplyBuffers(4);
        byte[] huge = buffers.take(ReplyBuffers.MAX_BYTES + 1);
        buffers.give(huge);

        assertThat(buffers.take(10)).isNotSameAs(huge);
    }

    @Test
    void aReleasedReplyGivesItsArrayBackOnce() {
        ReplyBuffers buffers = new ReplyBuffers(2);
        byte[] array = buffers.take(16);
        Reply reply = Reply.pooled(array, 2, buffers);
        reply.release();
        reply.release();

        assertThat(buffers.take(16)).isSameAs(array);
        assertThat(buffers.take(16)).as("given back once, taken once").isNotSameAs(array);
    }
}
