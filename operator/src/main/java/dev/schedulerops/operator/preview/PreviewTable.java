package dev.schedulerops.operator.preview;

import java.util.ArrayList;
import java.util.List;

/** A preview for people: one line per pod, the reasons under the table, the totals and the verdict. Pure. */
public final class PreviewTable {
    private PreviewTable() {}

    public static String render(PreviewReport report) {
        List<String[]> lines = new ArrayList<>();
        lines.add(new String[] {"POD", "TODAY", "CURRENT (sandbox)", "PROPOSAL (sandbox)", "CHANGE"});
        List<String> footnotes = new ArrayList<>();
        for (PreviewReport.Row row : report.rows()) {
            String change = row.change().text();
            if (row.tie()) {
                change += " (tie)";
            }
            if (row.replayDiffers()) {
                change += " (replay differs from today)";
            }
            lines.add(new String[] {
                row.pod(),
                row.today() == null ? "(sample)" : cell(row.today(), footnotes, row.pod()),
                row.current() == null ? "-" : cell(row.current(), footnotes, row.pod()),
                cell(row.proposal(), footnotes, row.pod()),
                change
            });
            for (String note : row.notes()) {
                footnotes.add(row.pod() + ": " + note);
            }
        }
        int[] widths = new int[5];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                out.append(i == line.length - 1 ? line[i] : pad(line[i], widths[i] + 2));
            }
            out.append('\n');
        }
        if (!footnotes.isEmpty()) {
            out.append('\n');
            for (int i = 0; i < footnotes.size(); i++) {
                out.append('[')
                        .append(i + 1)
                        .append("] ")
                        .append(footnotes.get(i))
                        .append('\n');
            }
        }
        PreviewReport.Totals t = report.totals();
        out.append('\n')
                .append("Totals: ")
                .append(t.pods())
                .append(" pods: ")
                .append(t.moved())
                .append(" moved, ")
                .append(t.newlyUnschedulable())
                .append(" newly unschedulable, ")
                .append(t.noLongerUnschedulable())
                .append(" no longer unschedulable, ")
                .append(t.unchanged())
                .append(" unchanged, ")
                .append(t.stillUnschedulable())
                .append(" still unschedulable");
        if (t.newlyPlaced() > 0) {
            out.append(", ").append(t.newlyPlaced()).append(" placed by a new profile");
        }
        out.append("; ").append(t.ties()).append(" with a score tie");
        if (t.replayDiffers() > 0) {
            out.append("; the current configuration's replay differs from today for ")
                    .append(t.replayDiffers())
                    .append(" pod(s)");
        }
        out.append('\n');
        for (String note : report.notes()) {
            out.append("Note: ").append(note).append('\n');
        }
        out.append("Verdict: ")
                .append(report.verdict())
                .append(": ")
                .append(report.verdictMessage())
                .append('\n');
        return out.toString();
    }

    private static String cell(PreviewReport.Outcome outcome, List<String> footnotes, String pod) {
        if (outcome.bound()) {
            String cell = outcome.node();
            if (outcome.tie()) {
                cell += " (tie: " + String.join(",", outcome.tiedWith()) + ")";
            }
            if (!outcome.preempted().isEmpty()) {
                footnotes.add(
                        pod + ": on " + outcome.node() + " after preempting " + String.join(", ", outcome.preempted()));
                cell += " [" + footnotes.size() + "]";
            }
            return cell;
        }
        if (outcome.reason() == null || outcome.reason().isEmpty()) {
            return outcome.state();
        }
        footnotes.add(pod + ": " + outcome.state() + ": " + outcome.reason());
        return outcome.state() + " [" + footnotes.size() + "]";
    }

    private static String pad(String text, int width) {
        StringBuilder s = new StringBuilder(text);
        while (s.length() < width) {
            s.append(' ');
        }
        return s.toString();
    }
}
