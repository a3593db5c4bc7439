package io.ferry;

import static io.ferry.DatasetTest.SAMPLE;
import static io.ferry.DatasetTest.assertFerry;
import static io.ferry.DatasetTest.bytesOf;
import static io.ferry.DatasetTest.dataset;
import static io.ferry.DatasetTest.pick;
import static io.ferry.DatasetTest.randomBytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/** ResidentLoader: epochs of gathers from a Dataset, depth ahead, with labels and per-batch augmentation. */
class ResidentLoaderTest {
  /** Every item of one iteration: its dataset indices, in order; the items are closed. */
  private static List<long[]> indicesOf(ResidentLoader loader) {
    List<long[]> batches = new ArrayList<>();
    for (ResidentLoader.Item item : loader) {
      try (item) {
        assertEquals(batches.size(), item.number());
        batches.add(item.indices());
      }
    }
    return batches;
  }

  private static long[] concat(List<long[]> batches) {
    return batches.stream().flatMapToLong(Arrays::stream).toArray();
  }

  @Test
  void anEpochIsTheDatasetsOrderCutIntoBatches() {
    byte[] data = randomBytes(10 * SAMPLE, 20);
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null);
         ResidentLoader loader = new ResidentLoader(ds, 4).setShuffle(true).setSeed(5).setEpoch(2)) {
      assertEquals(3, loader.size());
      List<long[]> batches = indicesOf(loader);
      assertEquals(List.of(4, 4, 2), batches.stream().map(b -> b.length).toList());
      assertArrayEquals(ds.epoch(5, 2, true), concat(batches));
      loader.setDropLast(true);
      assertEquals(2, loader.size());
      assertArrayEquals(Arrays.copyOf(ds.epoch(5, 2, true), 8), concat(indicesOf(loader)));
      loader.setShuffle(false);
      assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6, 7}, concat(indicesOf(loader)));
    }
  }

  @Test
  void epochsAreReproducibleAndEachCoversTheDataset() {
    byte[] data = randomBytes(12 * SAMPLE, 21);
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null);
         ResidentLoader a = new ResidentLoader(ds, 5).setShuffle(true).setSeed(9);
         ResidentLoader b = new ResidentLoader(ds, 5).setShuffle(true).setSeed(9)) {
      long[] first = concat(indicesOf(a));
      assertArrayEquals(first, concat(indicesOf(b))); // another loader, the same seed and epoch
      a.setEpoch(1);
      long[] second = concat(indicesOf(a));
      assertFalse(Arrays.equals(first, second));
      Arrays.sort(second);
      assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, second);
      assertEquals(1, a.epoch());
    }
  }

  @Test
  void itemsCarryTheLabelsAndPixelsOfTheirSourceSamples() {
    byte[] data = randomBytes(10 * SAMPLE, 22);
    long[] labels = new long[10];
    for (int i = 0; i < labels.length; ++i) labels[i] = 100 + 7 * i;
    try (Context ctx = FerryTest.cpuContext(); DatasetOptions o = new DatasetOptions();
         Transform copy = DatasetTest.uint8Nhwc()) {
      o.setPlacement(DatasetPlacement.SHARD); // a shard: dataset index i holds source sample 2 + 3 i
      o.setWorldSize(3);
      o.setRank(2);
      try (Dataset ds = dataset(ctx, data, o);
           ResidentLoader loader = new ResidentLoader(ds, 3).setShuffle(true).setTransform(copy).setLabels(labels)) {
        int items = 0;
        for (ResidentLoader.Item item : loader) {
          try (item) {
            long[] sources = item.sourceIndices();
            for (int i = 0; i < sources.length; ++i) {
              assertEquals(ds.sourceIndex(item.indices()[i]), sources[i]);
              assertEquals(labels[(int) sources[i]], item.labels()[i]);
            }
            assertArrayEquals(pick(data, sources), bytesOf(item.batch()));
            items++;
          }
        }
        assertEquals(2, items); // ceil(10 / 3) = 4 samples in batches of 3
        assertFerry(FerryException.InvalidArgument.class, "labels has 4 entries",
            () -> loader.setLabels(new long[4]));
        loader.setLabels(null);
        try (ResidentLoader.Item item = loader.iterator().next()) {
          assertNull(item.labels());
        }
      }
    }
  }

  @Test
  void eachBatchDrawsAtItsOwnStepAndRunsReproduce() {
    byte[] data = randomBytes(8 * SAMPLE, 23);
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null);
         Augment a = DatasetTest.cropFlipJitter(100); Transform t = new Transform().setResize(4, 4).setAugment(a);
         Augment check = DatasetTest.cropFlipJitter(0); Transform reference = new Transform().setResize(4, 4);
         ResidentLoader loader = new ResidentLoader(ds, 3).setShuffle(true).setSeed(1).setTransform(t)) {
      reference.setAugment(check);
      List<byte[]> run = new ArrayList<>();
      for (long epoch = 0; epoch < 2; ++epoch) {
        loader.setEpoch(epoch);
        for (ResidentLoader.Item item : loader) {
          try (item) {
            assertEquals(100 + epoch * 3 + item.number(), item.step()); // the Augment's step first
            byte[] bytes = bytesOf(item.batch());
            check.setStep(item.step()); // the same indices gathered at that step by hand
            assertArrayEquals(bytesOf(ds.gather(item.indices(), reference)), bytes, item.toString());
            run.add(bytes);
          }
        }
      }
      assertEquals(6, run.size());
      assertEquals(100, a.getStep()); // put back after each gather
      loader.setEpoch(0);
      try (ResidentLoader.Item again = loader.iterator().next()) { // a second run gives the same first batch
        assertArrayEquals(run.get(0), bytesOf(again.batch()));
      }
      // One batch of every sample in order: the epochs differ only by their steps, and draw differently.
      try (ResidentLoader whole = new ResidentLoader(ds, 8).setShuffle(false).setTransform(t)) {
        byte[] epoch0 = bytesOf(whole.iterator().next().batch());
        byte[] epoch1 = bytesOf(whole.setEpoch(1).iterator().next().batch());
        assertFalse(Arrays.equals(epoch0, epoch1));
      }
    }
  }

  @Test
  void gathersRunDepthAheadAndNothingStaysInFlight() {
    byte[] data = randomBytes(16 * SAMPLE, 24);
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null)) {
      ResidentLoader loader = new ResidentLoader(ds, 2).setDepth(3);
      long before;
      try (Stats stats = ctx.stats()) {
        before = stats.getBatchesSubmitted(); // the upload's batches
      }
      ResidentLoader.Batches batches = loader.iterator();
      try (ResidentLoader.Item item = batches.next(); Stats stats = ctx.stats()) {
        assertEquals(before + 4, stats.getBatchesSubmitted()); // the one returned and three ahead
        assertEquals(0, item.number());
      }
      ResidentLoader.Batches next = loader.iterator(); // closes the first: its three are released
      try (Stats stats = ctx.stats()) {
        assertEquals(0, stats.getBatchesUnreleased());
      }
      assertFerry(FerryException.InvalidHandle.class, "closed", batches::hasNext);
      next.next().close();
      loader.close();
      try (Stats stats = ctx.stats()) {
        assertEquals(0, stats.getBatchesUnreleased());
      }
      ResidentLoader.Batches done = loader.iterator();
      for (int i = 0; i < 8; ++i) done.next().close();
      assertFalse(done.hasNext());
      assertThrows(NoSuchElementException.class, done::next);
    }
  }

  @Test
  void badSettingsAndFailedGathersAreClearErrors() {
    byte[] data = randomBytes(4 * SAMPLE, 25);
    try (Context ctx = FerryTest.cpuContext()) {
      Dataset ds = dataset(ctx, data, null);
      assertFerry(FerryException.InvalidArgument.class, "dataset is null", () -> new ResidentLoader(null, 2));
      assertFerry(FerryException.InvalidArgument.class, "batchSize is 0", () -> new ResidentLoader(ds, 0));
      try (ResidentLoader loader = new ResidentLoader(ds, 2)) {
        assertFerry(FerryException.InvalidArgument.class, "depth is 0", () -> loader.setDepth(0));
        assertFerry(FerryException.InvalidArgument.class, "epoch is -1", () -> loader.setEpoch(-1));
        try (Transform t = new Transform().setMean(0.5f, 0.5f)) { // 2 values for 3 channels
          loader.setTransform(t);
          FerryException e = assertThrows(FerryException.InvalidArgument.class, loader.iterator()::next);
          assertTrue(e.getMessage().startsWith("ERR_INVALID_ARGUMENT: batch 0 of epoch 0: mean has 2 values"),
              e.getMessage());
        }
        loader.setTransform(null);
        ds.close();
        assertFerry(FerryException.InvalidHandle.class, "dataset", loader::iterator);
      }
    }
  }
}
