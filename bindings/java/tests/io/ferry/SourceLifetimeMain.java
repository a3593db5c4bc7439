package io.ferry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * Run by FerryTest in a child JVM: batches whose direct ByteBuffer source, Source and Batch are
 * all dropped (no close) right after submit, with the garbage collector forced and freed memory
 * reused while ferry's staging threads still read. Every output must be right: prints "ok" and
 * exits 0, else prints the first wrong value and exits 1 (or crashes, as it did before ferry kept
 * the source alive).
 */
public final class SourceLifetimeMain {
  private static final int N = 8, H = 224, W = 224, C = 3, BATCHES = 24, ROUNDS = 6;
  private static final int SOURCE_BYTES = N * H * W * C;

  private SourceLifetimeMain() {}

  private static int value(int round, int batch) { return (round * 101 + batch * 37 + 11) & 0xff; }

  /** Submits `pixels` into `out` and drops the Source and the Batch without closing them. */
  private static void submitAndDrop(Context ctx, ByteBuffer pixels, ByteBuffer out) {
    Source source = new Source().setShape(N, H, W, C).setBuffer(pixels);
    Output output = new Output();
    output.setData(Ferry.directBufferAddress(out));
    output.setBytes(out.capacity());
    Transform transform = new Transform();
    transform.setMirror(Mirror.X.swigValue()); // not the fastest path: the batches queue up longer
    ctx.submit(source, transform, output, null);
  }

  public static void main(String[] args) {
    ByteBuffer[] outputs = new ByteBuffer[BATCHES];
    for (int b = 0; b < BATCHES; ++b) {
      outputs[b] = ByteBuffer.allocateDirect(SOURCE_BYTES * 4).order(ByteOrder.nativeOrder());
    }
    byte[] fill = new byte[SOURCE_BYTES];
    for (int round = 0; round < ROUNDS; ++round) {
      ByteBuffer[] sources = new ByteBuffer[BATCHES];
      for (int b = 0; b < BATCHES; ++b) {
        Arrays.fill(fill, (byte) value(round, b));
        sources[b] = ByteBuffer.allocateDirect(SOURCE_BYTES);
        sources[b].put(fill).flip();
      }
      try (ContextOptions options = new ContextOptions()) {
        options.setDeviceKind(DeviceKind.CPU);
        options.setCpuThreads(1);
        options.setMaxBatchesInFlight(BATCHES);
        try (Context ctx = new Context(options)) {
          for (int b = 0; b < BATCHES; ++b) {
            submitAndDrop(ctx, sources[b], outputs[b]);
            sources[b] = null;
          }
          // While the batches queue up: the Batches are finalized, then their sources freed...
          System.gc();
          System.runFinalization();
          System.gc();
          // ... and what the collector freed is reused: a source freed too early reads 0xEE.
          Arrays.fill(fill, (byte) 0xEE);
          for (int k = 0; k < 4; ++k) ByteBuffer.allocateDirect(SOURCE_BYTES).put(fill);
        } // close waits for every batch
      }
      for (int b = 0; b < BATCHES; ++b) {
        float want = value(round, b) / 255.0f;
        FloatBuffer values = outputs[b].asFloatBuffer();
        for (int i = 0; i < values.capacity(); ++i) {
          if (Math.abs(values.get(i) - want) > 1e-6f) {
            System.out.println("round " + round + " batch " + b + " element " + i + ": " + values.get(i) + " != " + want);
            System.exit(1);
          }
        }
      }
    }
    System.out.println("ok");
  }
}
