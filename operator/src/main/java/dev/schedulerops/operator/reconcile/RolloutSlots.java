package dev.schedulerops.operator.reconcile;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * At most {@code max} profiles restart their pods at once; the others wait their turn, first come first served. An
 * operator upgrade (a new extender image, a new render) changes every profile's pod templates at the same moment:
 * without this, every scheduler in the cluster would restart together.
 *
 * <p>A profile takes a slot when an apply would change the pod template of a Deployment that already runs, and gives
 * it back once everything it rolled is available at its current generation, when it is deleted, or when it stops
 * rolling (made invalid). A rollout that never becomes available keeps its slot, on purpose: a bad upgrade stops
 * after {@code max} profiles, as a Deployment's maxUnavailable stops a bad rollout. Creating a profile takes no slot
 * (nothing runs yet to be disrupted). Slots live in memory: after an operator restart the rollouts already under way
 * are not counted, so up to {@code max} more may start beside them.
 */
public final class RolloutSlots {
    /** The default of {@code --max-concurrent-rollouts}. */
    public static final int DEFAULT_MAX = 5;

    private final int max;
    private final Set<ResourceID> rolling = new LinkedHashSet<>();
    private final Set<ResourceID> waiting = new LinkedHashSet<>();
    private volatile Consumer<ResourceID> wake = id -> {};

    public RolloutSlots(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the maximum of concurrent rollouts must be at least 1, not " + max);
        }
        this.max = max;
    }

    /** Called with each waiting profile whose turn has come, so that it is reconciled at once. */
    void onTurn(Consumer<ResourceID> wake) {
        this.wake = wake;
    }

    public int max() {
        return max;
    }

    /**
     * Takes a slot for {@code profile}, or keeps the one it holds. False when all are taken, or when profiles that
     * asked earlier are still waiting for the free ones: the profile is queued and {@link #onTurn} wakes it.
     */
    public synchronized boolean take(ResourceID profile) {
        if (rolling.contains(profile)) {
            return true;
        }
        waiting.add(profile);
        int free = max - rolling.size();
        int position = 0;
        for (ResourceID queued : waiting) {
            if (queued.equals(profile)) {
                break;
            }
            position++;
        }
        if (position < free) {
            waiting.remove(profile);
            rolling.add(profile);
            return true;
        }
        return false;
    }

    /** Gives back the profile's slot, or its place in the queue, and wakes the profiles whose turn it now is. */
    public void release(ResourceID profile) {
        List<ResourceID> next;
        synchronized (this) {
            boolean changed = rolling.remove(profile) | waiting.remove(profile);
            next = changed ? firstWaiting() : List.of();
        }
        next.forEach(wake);
    }

    /** Leaves the queue, if the profile waits in it (it no longer needs a slot), but keeps a slot it holds. */
    public void withdraw(ResourceID profile) {
        List<ResourceID> next;
        synchronized (this) {
            next = waiting.remove(profile) ? firstWaiting() : List.of();
        }
        next.forEach(wake);
    }

    /** The waiting profiles that would get a slot now. */
    private List<ResourceID> firstWaiting() {
        return waiting.stream().limit(Math.max(0, max - rolling.size())).toList();
    }

    public synchronized boolean holds(ResourceID profile) {
        return rolling.contains(profile);
    }

    /** The profiles rolling now, in the order they took their slots. */
    public synchronized List<ResourceID> rolling() {
        return List.copyOf(rolling);
    }

    public synchronized int waitingCount() {
        return waiting.size();
    }
}
