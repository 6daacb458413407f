package dev.schedulerops.extender.verbs;

/**
 * The int arrays of a names-only request, kept by each thread for its next request: the names' ranges the scanner
 * finds and the filter's list of failed names, 60 KB for 5000 names. {@link ExtenderVerbs#answer} is their only user
 * and nothing it creates outlives it, so one thread's next request may overwrite them. Arrays over {@link #MAX_INTS}
 * (requests of over 30 000 names) are used once and not kept, so that a thread keeps at most 512 KB, and only while it
 * lives: the server's pool ends threads idle for a minute.
 */
final class Scratch {
    static final int MAX_INTS = 1 << 16;

    private static final ThreadLocal<Scratch> OF_THREAD = ThreadLocal.withInitial(Scratch::new);

    private int[] nameRanges = new int[0];
    private int[] failed = new int[0];

    static Scratch ofThisThread() {
        return OF_THREAD.get();
    }

    /** The array of name ranges to reuse: the scanner uses it if it is large enough, else makes its own. */
    int[] nameRanges() {
        return nameRanges;
    }

    /** Keeps the array of name ranges a request ended with, when the scanner had to make a larger one. */
    void keepNameRanges(int[] used) {
        if (used.length > nameRanges.length && used.length <= MAX_INTS) {
            nameRanges = used;
        }
    }

    /** An array for the indexes of {@code n} failed names at most. */
    int[] failed(int n) {
        if (failed.length >= n) {
            return failed;
        }
        int[] larger = new int[n];
        if (n <= MAX_INTS) {
            failed = larger;
        }
        return larger;
    }
}
