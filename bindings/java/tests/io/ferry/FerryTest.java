package io.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FerryTest {
  private static Context cpuContext() {
    try (ContextOptions options = new ContextOptions()) {
      options.setDeviceKind(DeviceKind.CPU);
      options.setCpuThreads(2);
      return new Context(options);
    }
  }

  @Test
  void versionMatchesTheHeader() {
    assertEquals(FerryConstants.FERRY_VERSION_NUMBER, Ferry.version());
    assertTrue(Ferry.versionString().startsWith("0.1.0"));
    assertEquals("FERRY_ERR_INVALID_HANDLE", Ferry.statusString(Status.ERR_INVALID_HANDLE));
  }

  @Test
  void cpuContextIsAutoCloseable() {
    try (Context ctx = cpuContext()) {
      assertEquals(DeviceKind.CPU, ctx.deviceKind());
    }
  }

  @Test
  void badOptionThrowsWithFerrysMessage() {
    try (ContextOptions options = new ContextOptions()) {
      options.setStreamCount(1000);
      FerryException.InvalidArgument e =
          assertThrows(FerryException.InvalidArgument.class, () -> new Context(options));
      assertEquals(Status.ERR_INVALID_ARGUMENT, e.status());
      assertTrue(e.getMessage().contains("stream_count"), e.getMessage());
      assertTrue(e.getMessage().contains("1000"), e.getMessage());
    }
  }

  @Test
  void useAfterCloseAndCloseTwice() {
    Context ctx = cpuContext();
    ctx.close();
    ctx.close(); // idempotent
    FerryException.InvalidHandle e = assertThrows(FerryException.InvalidHandle.class, ctx::deviceKind);
    assertTrue(e.getMessage().contains("ctx"), e.getMessage());
  }

  @Test
  void cudaWithoutGpuIsNoDevice() {
    assumeTrue(Ferry.deviceCount() == 0, "a GPU is present");
    try (ContextOptions options = new ContextOptions()) {
      options.setDeviceKind(DeviceKind.CUDA);
      assertThrows(FerryException.NoDevice.class, () -> new Context(options));
    }
    assertThrows(FerryException.class, () -> Ferry.deviceProperties(0));
  }

  @Test
  void transformArraysAreChecked() {
    try (Transform t = new Transform()) {
      t.setMean(new float[] {0.5f, 0.25f, 0.125f});
      assertEquals(0.25f, t.meanAt(1));
      assertThrows(FerryException.OutOfRange.class, () -> t.setMean(new float[5]));
      assertThrows(FerryException.InvalidArgument.class, () -> t.setStd(null));
      assertThrows(FerryException.OutOfRange.class, () -> t.meanAt(4));
      assertEquals(DType.FLOAT32, t.getOutDtype());
    }
  }

  @Test
  void nonDirectBufferIsRejected() {
    try (Source s = new Source()) {
      assertThrows(FerryException.InvalidArgument.class, () -> s.setBuffer(ByteBuffer.allocate(16)));
      assertThrows(FerryException.InvalidArgument.class, () -> s.setBuffer(null));
    }
  }

  @Test
  void contextsFromManyThreads() throws InterruptedException {
    List<Throwable> errors = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; ++i) {
      Thread t = new Thread(() -> {
        try {
          for (int k = 0; k < 5; ++k) {
            try (Context ctx = cpuContext()) {
              assertEquals(DeviceKind.CPU, ctx.deviceKind());
            }
          }
        } catch (Throwable e) {
          synchronized (errors) { errors.add(e); }
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) t.join();
    assertTrue(errors.isEmpty(), errors.toString());
  }

  private static byte[] pixels(int count) {
    byte[] data = new byte[count];
    for (int i = 0; i < count; ++i) data[i] = (byte) (i * 37);
    return data;
  }

  @Test
  void directBufferBatchOnCpu() {
    byte[] data = pixels(2 * 4 * 5 * 3);
    ByteBuffer direct = ByteBuffer.allocateDirect(data.length);
    direct.put(data).flip();
    try (Context ctx = cpuContext(); Source source = new Source(); Transform t = new Transform()) {
      source.setShape(2, 4, 5, 3).setBuffer(direct);
      t.setOutLayout(Layout.NHWC);
      try (Batch batch = ctx.submit(source, t)) {
        batch.await();
        try (TensorInfo info = batch.output()) {
          assertEquals(DType.FLOAT32, info.getDtype());
          assertEquals(5, info.shapeAt(2));
          ByteBuffer out = Ferry.asByteBuffer(info.getData(), info.getBytes());
          float[] values = new float[data.length];
          out.order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer().get(values);
          float[] want = new float[data.length];
          for (int i = 0; i < data.length; ++i) want[i] = (data[i] & 0xff) / 255.0f;
          assertArrayEquals(want, values, 1e-6f);
        }
      }
    }
  }

  @Test
  void byteArrayBatchAndBadSizes() {
    byte[] data = pixels(1 * 4 * 5 * 3);
    try (Context ctx = cpuContext(); Source source = new Source()) {
      source.setShape(1, 4, 5, 3);
      try (Batch batch = ctx.submit(source, data, null)) {
        batch.await();
        assertTrue(batch.query());
        assertTrue(batch.sourceReusable());
      }
      source.setShape(1, 40, 5, 3); // more pixels than the array holds
      assertThrows(FerryException.class, () -> ctx.submit(source, data, null));
      assertThrows(FerryException.class, () -> ctx.submit(null));
      Batch batch = ctx.submit(new Source().setShape(1, 4, 5, 3), data, null);
      batch.close();
      batch.close();
      assertThrows(FerryException.InvalidHandle.class, batch::await);
    }
  }
}
