package io.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Resident datasets (ferry/dataset.h) on the CPU backend: gathers checked byte for byte against submits. */
class DatasetTest {
  static final long H = 6, W = 5, C = 3, SAMPLE = H * W * C;

  static byte[] randomBytes(long count, long seed) {
    byte[] data = new byte[(int) count];
    new Random(seed).nextBytes(data);
    return data;
  }

  /** The output of a batch, waited for, as bytes; the batch is closed. */
  static byte[] bytesOf(Batch batch) {
    try (Batch b = batch) {
      b.await();
      try (TensorInfo out = b.output()) {
        byte[] bytes = new byte[(int) out.getBytes()];
        Ferry.asByteBuffer(out.getData(), out.getBytes()).get(bytes);
        return bytes;
      }
    }
  }

  /** Samples `indices` of `data` (H x W x C each) packed into one byte[], in that order. */
  static byte[] pick(byte[] data, long[] indices) {
    byte[] picked = new byte[(int) (indices.length * SAMPLE)];
    for (int i = 0; i < indices.length; ++i)
      System.arraycopy(data, (int) (indices[i] * SAMPLE), picked, (int) (i * SAMPLE), (int) SAMPLE);
    return picked;
  }

  /** The same samples submitted from host memory through the same transform. */
  static byte[] fromHost(Context ctx, byte[] data, long[] indices, Transform t) {
    try (Source source = new Source().setShape(indices.length, H, W, C)) {
      return bytesOf(ctx.submit(source, pick(data, indices), t));
    }
  }

  /** A dataset of n random H x W x C samples uploaded from a byte[]. */
  static Dataset dataset(Context ctx, byte[] data, DatasetOptions options) {
    try (Source source = new Source().setShape(data.length / SAMPLE, H, W, C)) {
      return new Dataset(ctx, source, data, options);
    }
  }

  static Transform uint8Nhwc() { return new Transform().setOutDtype("uint8").setOutLayout("NHWC"); }

  static Augment cropFlipJitter(long step) {
    return new Augment().setSeed(7).setStep(step).setCrop(AugmentCrop.CROP_RANDOM).setPadding(2)
        .setFlipXProbability(0.5f).setBrightness(0.6f, 1.4f).setSaturation(0.5f, 1.5f);
  }

  static <T extends FerryException> void assertFerry(Class<T> type, String part, Executable call) {
    T e = assertThrows(type, call);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }

  @Test
  void gathersAsASubmitOfTheSameSamplesFromHostMemory() {
    byte[] data = randomBytes(40 * SAMPLE, 1);
    long[] indices = {5, 0, 39, 5, 17, 2};
    try (Context ctx = FerryTest.cpuContext(); Transform t = new Transform().setMean(0.5f, 0.4f, 0.3f).setStd(0.25f)) {
      Dataset ds = dataset(ctx, data, null);
      try (DatasetInfo info = ds.info()) {
        assertEquals(40, info.getCount());
        assertEquals(40, info.getSourceCount());
        assertEquals(H, info.getH());
        assertEquals(W, info.getW());
        assertEquals(C, info.getC());
        assertEquals(Layout.NHWC, info.getLayout());
        assertEquals(0, info.getVariableSizes());
        assertEquals(data.length, info.getBytes());
        assertEquals(DeviceKind.CPU, info.getDeviceKind());
        assertEquals(DatasetPlacement.REPLICA, info.getPlacement());
        assertEquals(40, info.getEpochSize());
      }
      try (Stats stats = ctx.stats()) {
        assertEquals(data.length, stats.getResidentBytes());
        assertEquals(1, stats.getResidentDatasets());
      }
      assertArrayEquals(fromHost(ctx, data, indices, t), bytesOf(ds.gather(indices, t)));
      try (Transform copy = uint8Nhwc()) {
        assertArrayEquals(pick(data, indices), bytesOf(ds.gather(indices, copy))); // the samples themselves
      }
      assertTrue(ds.toString().startsWith("Dataset(40 of 40 samples, 6 x 5 x 3 NHWC"), ds.toString());
      ds.close();
      try (Stats stats = ctx.stats()) {
        assertEquals(0, stats.getResidentBytes());
      }
    }
  }

  @Test
  void aDirectByteBufferUploadsAsTheByteArray() {
    byte[] data = randomBytes(9 * SAMPLE, 2);
    ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).flip();
    long[] all = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source().setShape(9, H, W, C).setBuffer(direct);
         DatasetOptions options = new DatasetOptions(); Transform copy = uint8Nhwc()) {
      options.setPartBytes(2 * SAMPLE); // five parts through the staging pipeline
      try (Dataset ds = new Dataset(ctx, source, options)) {
        assertArrayEquals(data, bytesOf(ds.gather(all, copy)));
      }
    }
  }

  @Test
  void augmentedGathersDrawAsTheSameBatchFromHostMemory() {
    byte[] data = randomBytes(24 * SAMPLE, 3);
    long[] indices = {3, 9, 1, 23, 0, 12, 7, 7};
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null);
         Transform t = new Transform().setResize(4, 4).setOutDtype("float16").setMean(0.5f).setStd(0.25f)) {
      byte[] previous = null;
      for (long step : new long[] {0, 1, 5}) {
        try (Augment a = cropFlipJitter(step)) {
          t.setAugment(a);
          a.requestDrawn(indices.length);
          Batch gathered = ds.gather(indices, t);
          AugmentParams[] drawn = gathered.drawn();
          byte[] bytes = bytesOf(gathered);
          try (Source source = new Source().setShape(indices.length, H, W, C);
               Batch host = ctx.submit(source, pick(data, indices), t)) {
            assertArrayEquals(host.drawn(), drawn, "step " + step);
            assertArrayEquals(bytesOf(host), bytes, "step " + step);
          }
          assertFalse(Arrays.equals(previous, bytes), "step " + step + " drew as the step before");
          previous = bytes;
          t.setAugment(null);
        }
      }
    }
  }

  @Test
  void imagesOfDifferentSizesAreResizedOnTheWayOut() {
    long[][] sizes = {{6, 9}, {4, 4}, {11, 3}};
    List<Source.Image> images = new ArrayList<>();
    for (int i = 0; i < sizes.length; ++i) {
      byte[] pixels = randomBytes(sizes[i][0] * sizes[i][1] * C, 10 + i);
      if (i == 1) { // one in a direct ByteBuffer, the others pinned for the upload
        images.add(Source.Image.of(ByteBuffer.allocateDirect(pixels.length).put(pixels).flip(), 4, 4, C));
      } else {
        images.add(Source.Image.of(pixels, sizes[i][0], sizes[i][1], C));
      }
    }
    long[] indices = {2, 0, 1, 2};
    List<Source.Image> picked = new ArrayList<>();
    for (long i : indices) picked.add(images.get((int) i));
    try (Context ctx = FerryTest.cpuContext(); Source all = new Source().setImages(images);
         Source host = new Source().setImages(picked); Dataset ds = new Dataset(ctx, all);
         Transform t = new Transform().setResize(5, 4)) {
      try (DatasetInfo info = ds.info()) {
        assertEquals(1, info.getVariableSizes());
        assertEquals(11, info.getH());
        assertEquals(9, info.getW());
      }
      assertArrayEquals(bytesOf(ctx.submit(host, t)), bytesOf(ds.gather(indices, t)));
      try (Transform plain = new Transform()) { // no one output size: ferry names what is missing
        assertFerry(FerryException.InvalidArgument.class, "resize", () -> ds.gather(indices, plain));
      }
    }
  }

  @Test
  void gatherDeviceReadsTheIndicesFromTheContextsMemory() {
    byte[] data = randomBytes(12 * SAMPLE, 11);
    long[] indices = {11, 0, 4, 4, 7};
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null); Transform copy = uint8Nhwc();
         Transform t = new Transform().setMean(0.5f).setStd(0.2f)) {
      long address = ctx.deviceAlloc(8 * indices.length); // host memory on the CPU backend
      try {
        LongBuffer held = Ferry.asByteBuffer(address, 8 * indices.length).order(ByteOrder.nativeOrder()).asLongBuffer();
        held.put(indices);
        assertArrayEquals(bytesOf(ds.gather(indices, t)), bytesOf(ds.gatherDevice(address, indices.length, t)));
        held.put(0, 99); // read when the gather runs, not checked: clamped to the last sample
        assertArrayEquals(pick(data, new long[] {11, 0}), bytesOf(ds.gatherDevice(address, 2, copy)));
        assertFerry(FerryException.InvalidArgument.class, "count is 0", () -> ds.gatherDevice(address, 0, null));
        assertFerry(FerryException.InvalidArgument.class, "indices", () -> ds.gatherDevice(0, 1, null));
      } finally {
        ctx.deviceFree(address);
      }
    }
  }

  @Test
  void epochsArePermutationsSharedOutAmongRanks() {
    byte[] data = randomBytes(11 * SAMPLE, 4);
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null)) {
      long[] a = ds.epoch(42, 0, true);
      assertArrayEquals(a, ds.epoch(42, 0, true));
      assertFalse(Arrays.equals(a, ds.epoch(42, 1, true)));
      assertFalse(Arrays.equals(a, ds.epoch(43, 0, true)));
      long[] sorted = a.clone();
      Arrays.sort(sorted);
      assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, sorted);
      assertArrayEquals(sorted, ds.epoch(42, 1, false));
      // Three ranks of replicas: places rank, rank + 3, ... of the same permutation, padded by wrapping.
      long[] seen = new long[11];
      for (int rank = 0; rank < 3; ++rank) {
        try (DatasetOptions o = new DatasetOptions()) {
          o.setWorldSize(3);
          o.setRank(rank);
          try (Dataset r = dataset(ctx, data, o)) {
            long[] share = r.epoch(42, 0, true);
            assertEquals(4, share.length);
            for (int k = 0; k < 4; ++k) {
              assertEquals(a[(rank + 3 * k) % 11], share[k], "rank " + rank + " place " + k);
              seen[(int) share[k]]++;
            }
          }
        }
      }
      assertEquals(12, Arrays.stream(seen).sum());
      assertTrue(Arrays.stream(seen).allMatch(times -> times >= 1), Arrays.toString(seen));
    }
  }

  @Test
  void aShardHoldsItsRanksSamples() {
    byte[] data = randomBytes(10 * SAMPLE, 5);
    try (Context ctx = FerryTest.cpuContext(); DatasetOptions o = new DatasetOptions(); Transform copy = uint8Nhwc()) {
      o.setPlacement(DatasetPlacement.SHARD);
      o.setWorldSize(3);
      o.setRank(1);
      try (Dataset ds = dataset(ctx, data, o)) {
        long[] expected = {1, 4, 7, 0}; // ceil(10 / 3) places; 10 wraps round to 0
        long[] sources = new long[4];
        for (int i = 0; i < 4; ++i) sources[i] = ds.sourceIndex(i);
        assertArrayEquals(expected, sources);
        assertArrayEquals(pick(data, expected), bytesOf(ds.gather(new long[] {0, 1, 2, 3}, copy)));
        long[] order = ds.epoch(9, 0, true);
        Arrays.sort(order);
        assertArrayEquals(new long[] {0, 1, 2, 3}, order); // a shard is permuted in itself
        assertFerry(FerryException.OutOfRange.class, "index is 4", () -> ds.sourceIndex(4));
      }
    }
  }

  @Test
  void badInputRaisesFerrysErrorNamingTheArgument() {
    byte[] data = randomBytes(6 * SAMPLE, 6);
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null)) {
      assertFerry(FerryException.OutOfRange.class, "indices[1] is 6", () -> ds.gather(new long[] {0, 6}));
      assertFerry(FerryException.OutOfRange.class, "indices[0] is -1", () -> ds.gather(new long[] {-1}));
      assertFerry(FerryException.InvalidArgument.class, "indices is empty", () -> ds.gather(new long[0]));
      assertFerry(FerryException.InvalidArgument.class, "indices is null", () -> ds.gather(null));
      assertFerry(FerryException.OutOfRange.class, "index is -1", () -> ds.sourceIndex(-1));
      try (SubmitOptions chunked = new SubmitOptions()) {
        chunked.setChunkBytes(1024);
        assertFerry(FerryException.InvalidArgument.class, "options->chunk_bytes is 1024",
            () -> ds.gather(new long[] {0}, null, null, chunked));
      }
      try (Transform t = new Transform().setMean(0.5f, 0.5f)) { // 2 values for 3 channels, as at submit
        assertFerry(FerryException.InvalidArgument.class, "mean has 2 values", () -> ds.gather(new long[] {0}, t));
      }
      try (Source source = new Source().setShape(6, H, W, C); DatasetOptions o = new DatasetOptions()) {
        o.setWorldSize(2);
        o.setRank(2);
        assertFerry(FerryException.InvalidArgument.class, "options->rank is 2", () -> new Dataset(ctx, source, data, o));
        assertFerry(FerryException.InvalidArgument.class, "data is null", () -> new Dataset(ctx, source, null, null));
        source.setShape(0, H, W, C);
        assertFerry(FerryException.InvalidArgument.class, "source.n", () -> new Dataset(ctx, source, data));
      }
      try (Stats stats = ctx.stats()) { // the failed uploads hold nothing
        assertEquals(1, stats.getResidentDatasets());
      }
    }
  }

  @Test
  void aClosedDatasetOrContextIsAnInvalidHandle() {
    byte[] data = randomBytes(4 * SAMPLE, 7);
    Context ctx = FerryTest.cpuContext();
    Dataset closed = dataset(ctx, data, null);
    closed.close();
    closed.close(); // idempotent
    assertEquals("Dataset(closed)", closed.toString());
    assertFerry(FerryException.InvalidHandle.class, "dataset", () -> closed.gather(new long[] {0}));
    assertFerry(FerryException.InvalidHandle.class, "dataset", closed::info);
    assertFerry(FerryException.InvalidHandle.class, "dataset", () -> closed.epoch(1, 0, true));
    assertFerry(FerryException.InvalidHandle.class, "dataset", () -> closed.sourceIndex(0));
    DatasetInfo info = new DatasetInfo();
    info.close(); // a closed struct's fields throw too, not crash
    assertFerry(FerryException.InvalidHandle.class, "the DatasetInfo is closed", info::getCount);

    Dataset orphan = dataset(ctx, data, null);
    ctx.close(); // destroys its datasets
    assertFerry(FerryException.InvalidHandle.class, "dataset", orphan::info);
    assertFerry(FerryException.InvalidHandle.class, "dataset", () -> orphan.gather(new long[] {0}));
    assertEquals("Dataset(destroyed with its context)", orphan.toString());
    orphan.close(); // nothing left to free, and no error
  }

  @Test
  void aGatherKeepsTheSamplesOfADatasetClosedMeanwhile() {
    byte[] data = randomBytes(8 * SAMPLE, 8);
    long[] indices = {7, 6, 5};
    try (Context ctx = FerryTest.cpuContext(); Transform copy = uint8Nhwc()) {
      Dataset ds = dataset(ctx, data, null);
      Batch batch = ds.gather(indices, copy);
      ds.close();
      assertArrayEquals(pick(data, indices), bytesOf(batch));
      try (Stats stats = ctx.stats()) {
        assertEquals(0, stats.getResidentBytes()); // the batch's release let the samples go
      }
    }
  }

  @Test
  void gathersFromSeveralThreadsAtOnce() throws InterruptedException {
    byte[] data = randomBytes(64 * SAMPLE, 9);
    try (Context ctx = FerryTest.cpuContext(); Dataset ds = dataset(ctx, data, null); Augment a = cropFlipJitter(3);
         Transform t = new Transform().setResize(4, 4).setAugment(a)) {
      long[][] lists = new long[4][16];
      byte[][] expected = new byte[4][];
      for (int k = 0; k < 4; ++k) {
        for (int i = 0; i < 16; ++i) lists[k][i] = (k * 16 + i * 7) % 64;
        expected[k] = fromHost(ctx, data, lists[k], t);
      }
      AtomicInteger mismatches = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int k = 0; k < 4; ++k) {
        final int list = k;
        threads.add(new Thread(() -> {
          for (int round = 0; round < 10; ++round) {
            try {
              if (!Arrays.equals(expected[list], bytesOf(ds.gather(lists[list], t)))) mismatches.incrementAndGet();
            } catch (RuntimeException e) { // a thread's exception would not fail the test by itself
              mismatches.incrementAndGet();
            }
          }
        }));
      }
      for (Thread thread : threads) thread.start();
      for (Thread thread : threads) thread.join();
      assertEquals(0, mismatches.get());
    }
  }
}
