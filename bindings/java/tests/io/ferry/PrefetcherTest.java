package io.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Context.prefetch (issue 11): depth batches ahead, and nothing left in flight however it ends. */
class PrefetcherTest {
  /** Sources of n x 4 x 5 x 3 pixels, all of value `fill`, shape (n, 4, 5, 3). */
  private static List<Source> sources(int count, int n) {
    List<Source> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ByteBuffer pixels = ByteBuffer.allocateDirect(n * 4 * 5 * 3);
      for (int k = 0; k < pixels.capacity(); k++) pixels.put(k, (byte) (10 * i));
      list.add(new Source().setShape(n, 4, 5, 3).setBuffer(pixels));
    }
    return list;
  }

  private static void closeAll(List<Source> list) {
    for (Source s : list) s.close();
  }

  private static boolean nothingInFlight(Context ctx) throws InterruptedException {
    for (int tries = 0; tries < 2000; tries++) { // completion is counted just after a wait returns
      try (Stats stats = ctx.stats()) {
        if (stats.getBatchesUnreleased() == 0
            && stats.getBatchesSubmitted() == stats.getBatchesCompleted() + stats.getBatchesFailed()) {
          return true;
        }
      }
      Thread.sleep(5);
    }
    return false;
  }

  private static float first(Batch batch) {
    try (TensorInfo out = batch.output()) {
      return Ferry.asByteBuffer(out.getData(), out.getBytes()).order(ByteOrder.nativeOrder()).getFloat(0);
    }
  }

  @Test
  void yieldsEachSourceInOrderWithDepthAhead() throws InterruptedException {
    List<Source> list = sources(5, 2);
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform()) {
      int seen = 0;
      try (Prefetcher batches = ctx.prefetch(list, t)) {
        assertEquals(2, batches.depth());
        while (batches.hasNext()) {
          try (Batch batch = batches.next()) {
            try (Stats stats = ctx.stats()) { // this one plus up to depth submitted ahead
              assertTrue(stats.getBatchesUnreleased() <= 3);
              assertEquals(Math.min(5, seen + 3), stats.getBatchesSubmitted());
            }
            batch.await();
            assertEquals(10 * seen / 255f, first(batch), 1e-6f);
            seen++;
          }
        }
      }
      assertEquals(5, seen);
      assertTrue(nothingInFlight(ctx));
    } finally {
      closeAll(list);
    }
  }

  @Test
  void leavingEarlyLeavesNothingInFlight() throws InterruptedException {
    List<Source> list = sources(8, 16);
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform()) {
      try (Prefetcher batches = ctx.prefetch(list, t, null, 3)) {
        batches.next().close();
      } // break: the three ahead are waited for and released
      assertTrue(nothingInFlight(ctx));
    } finally {
      closeAll(list);
    }
  }

  @Test
  void shapesMayChangeFromSourceToSource() {
    List<Source> list = sources(2, 2);
    list.addAll(sources(2, 3));
    try (Context ctx = FerryTest.cpuContext(); Prefetcher batches = ctx.prefetch(list, null)) {
      List<Long> sizes = new ArrayList<>();
      while (batches.hasNext()) {
        try (Batch batch = batches.next()) {
          batch.await();
          try (TensorInfo out = batch.output()) {
            sizes.add(out.shape()[0]);
          }
        }
      }
      assertEquals(List.of(2L, 2L, 3L, 3L), sizes);
    } finally {
      closeAll(list);
    }
  }

  @Test
  void aSourceIteratorThatThrowsReachesTheCallerAfterTheBatchesAreReleased() throws InterruptedException {
    List<Source> list = sources(6, 2);
    Iterable<Source> failing = () -> new Iterator<Source>() {
      int i = 0;
      public boolean hasNext() { return true; }
      public Source next() {
        if (i == 3) throw new IllegalStateException("the frame source failed at 3");
        return list.get(i++);
      }
    };
    try (Context ctx = FerryTest.cpuContext()) {
      Prefetcher batches = ctx.prefetch(failing, null, null, 2);
      batches.next().close(); // returns 0 with 1 and 2 submitted ahead
      IllegalStateException e = assertThrows(IllegalStateException.class, batches::next); // reads item 3
      assertEquals("the frame source failed at 3", e.getMessage());
      assertTrue(nothingInFlight(ctx));
      assertThrows(FerryException.InvalidHandle.class, batches::hasNext);
    } finally {
      closeAll(list);
    }
  }

  @Test
  void badInputIsAClearError() throws InterruptedException {
    List<Source> list = sources(3, 2);
    list.get(1).setShape(2, 4, 5, 7); // 7 channels: ferry refuses that batch
    try (Context ctx = FerryTest.cpuContext()) {
      for (int depth : new int[] {0, -1}) {
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> ctx.prefetch(list, null, null, depth));
        assertTrue(e.getMessage().contains("depth is " + depth), e.getMessage());
      }
      assertThrows(FerryException.InvalidArgument.class, () -> ctx.prefetch(null, null));
      Prefetcher batches = ctx.prefetch(list, null);
      FerryException e = assertThrows(FerryException.class, batches::next);
      assertTrue(e.getMessage().contains("batch 1 from the sources"), e.getMessage());
      assertTrue(nothingInFlight(ctx));
    } finally {
      closeAll(list);
    }
    Context closed = FerryTest.cpuContext();
    closed.close();
    List<Source> more = sources(1, 1);
    try {
      Prefetcher batches = closed.prefetch(more, null);
      FerryException e = assertThrows(FerryException.InvalidHandle.class, batches::hasNext);
      assertTrue(e.getMessage().contains("batch 0 from the sources"), e.getMessage());
    } finally {
      closeAll(more);
    }
  }
}
