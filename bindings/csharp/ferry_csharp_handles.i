/* ferry bindings, C#: the C# side of Context, Batch, Source, Transform and
 * TensorInfo: Submit overloads; a byte[] source set with Source.SetBuffer is
 * pinned by a GCHandle that the batch's completion callback frees (however
 * the Batch is dropped); byte[] / Span<byte> sources pinned for the call;
 * images of different sizes (Source.SetImages: byte[]s pinned by GCHandles
 * that the completion callback frees, or IntPtr memory the caller keeps);
 * Transform arrays checked as written; ToString(). */

/* Samples of different sizes (ferry_source.sample_descs): Source.SetImages below. */
%csmethodmodifiers ferry_source::set_sample_descs "internal";
%csmethodmodifiers ferry_source::clear_sample_descs "internal";

%rename(SubmitNative) ferry_context_s::submit;
%csmethodmodifiers ferry_context_s::submit "internal";
%csmethodmodifiers ferry_context_s::submit_holding "internal";
%rename(SubmitPinnedNative) ferry_context_s::submit_and_wait_source;
%csmethodmodifiers ferry_context_s::submit_and_wait_source "internal";
%rename(ConvertNative) ferry_context_s::convert;
%csmethodmodifiers ferry_context_s::convert "internal";
%rename(TransformOutputInfoNative) transform_output_info;
%csmethodmodifiers transform_output_info "internal";
%csmethodmodifiers ferry_batch_s::describe "internal";
%csmethodmodifiers ferry_tensor_info::describe "internal";
%csmethodmodifiers ferry_batch_s::retain_output_reference "internal";
%csmethodmodifiers ferry_tensor_info::describe_reference "internal";
%csmethodmodifiers tensor_release "internal";

/* Transform's array setters: the C# methods below remember each length. */
%ignore ferry_transform::set_mean;
%ignore ferry_transform::set_std;
%csmethodmodifiers ferry_transform::set_mean_values "internal";
%csmethodmodifiers ferry_transform::set_std_values "internal";
%csmethodmodifiers ferry_transform::check_value_lengths "internal";
%csmethodmodifiers ferry_transform::set_channel_map "internal";
%csmethodmodifiers ferry_transform::set_per_sample_mean "internal";
%csmethodmodifiers ferry_transform::set_per_sample_std "internal";
%csmethodmodifiers ferry_transform::set_per_sample_crop "internal";
%csmethodmodifiers ferry_transform::set_per_sample_mirror "internal";
%csmethodmodifiers ferry_transform::set_letterbox_value "internal";
%csmethodmodifiers ferry_transform::set_per_sample_window "internal";
%csmethodmodifiers ferry_source::set_samples "internal";
/* A frame's planes: Source.SetPlaneOffsets / SetPlanePitches below (params, chained). */
%csmethodmodifiers ferry_source::set_plane_offsets "internal";
%csmethodmodifiers ferry_source::set_plane_pitches "internal";

%pragma(csharp) modulecode=%{
  /// <summary>The packed output that source and transform give (ferry_transform_describe_output), with
  /// the transform's mean/std lengths checked against the channels as at Submit.</summary>
  public static TensorInfo TransformOutputInfo(Source source, Transform transform) {
    if (transform != null) transform.CheckLengths(source);
    var pins = source == null ? null : source.PinImages();
    try {
      TensorInfo info = TransformOutputInfoNative(source, transform);
      if (transform != null) transform.AugmentCalled(null);
      return info;
    } finally {
      if (pins != null) source.UnpinImages(pins);
    }
  }
%}

%typemap(cscode) ferry_context_s %{
  /// <summary>The sources' batches, depth submitted ahead of the one yielded (see Prefetching.cs):
  /// <c>foreach (Batch b in ctx.Prefetch(frames, t)) using (b) { b.Wait(); ... }</c>. transform and
  /// options (a hand-off stream, ...) may be null. Leaving the loop early leaves nothing in flight.</summary>
  public global::System.Collections.Generic.IEnumerable<Batch> Prefetch(
      global::System.Collections.Generic.IEnumerable<Source> sources, Transform transform = null,
      SubmitOptions options = null, int depth = 2) {
    return Prefetching.Checked(this, sources, transform, null, options, depth);
  }

  /// <summary>Submits a batch; returns at once. The source memory is read asynchronously: keep it
  /// unchanged until Batch.SourceReusable() or WaitSource(). A byte[] set with Source.SetBuffer is
  /// pinned until ferry no longer reads it, even if the Batch is dropped without Dispose().
  /// transform, output and options may be null for the defaults. Throws InvalidArgumentException
  /// when the transform's mean or std has neither 1 value nor one per output channel.</summary>
  public Batch Submit(Source source, Transform transform = null, Output output = null, SubmitOptions options = null) {
    if (transform != null) transform.CheckLengths(source);
    Batch batch;
    byte[] array = source == null ? null : source.Buffer;
    var pins = source == null ? null : source.PinImages();
    if (pins != null) {
      // Source.SetImages with byte[] pixels: each array stays pinned until ferry no longer reads
      // it (the completion callback frees the pins, or SubmitHolding when the submit fails).
      DisposeAtExit();
      var hold = global::System.Runtime.InteropServices.GCHandle.Alloc(pins);
      try {
        batch = SubmitHolding(source, transform, output, options,
                              global::System.Runtime.InteropServices.GCHandle.ToIntPtr(hold));
      } finally {
        source.UnpinImages(null); // the source's descriptions forget the pinned addresses
      }
    } else if (array == null) {
      batch = SubmitHolding(source, transform, output, options, global::System.IntPtr.Zero);
    } else {
      // Freed by the completion callback, or by SubmitHolding when the submit fails.
      DisposeAtExit();
      var pin = global::System.Runtime.InteropServices.GCHandle.Alloc(array,
          global::System.Runtime.InteropServices.GCHandleType.Pinned);
      global::System.IntPtr data = new global::System.IntPtr(pin.AddrOfPinnedObject().ToInt64() + source.BufferOffset);
      batch = SubmitHolding(source, transform, output, options,
          global::System.Runtime.InteropServices.GCHandle.ToIntPtr(pin), data, (ulong)source.BufferCount);
    }
    batch.KeepAlive = this;
    if (transform != null) transform.AugmentCalled(batch);
    return batch;
  }

  // The completion callback that unpins a SetBuffer source runs on a ferry thread, which the
  // runtime then counts as its own, and Mono waits for such threads at exit: a context that used
  // one is disposed when the process exits (its batches finish first), so that its threads end.
  // (DomainUnload: where the code runs in an application domain of its own, as under NUnit.)
  bool disposeAtExit;
  static bool exitHooked;
  static readonly global::System.Collections.Generic.List<global::System.WeakReference> disposedAtExit =
      new global::System.Collections.Generic.List<global::System.WeakReference>();

  void DisposeAtExit() {
    lock (disposedAtExit) {
      if (disposeAtExit) return;
      disposeAtExit = true;
      if (!exitHooked) {
        global::System.AppDomain.CurrentDomain.ProcessExit += DisposeOpenContexts;
        global::System.AppDomain.CurrentDomain.DomainUnload += DisposeOpenContexts;
        exitHooked = true;
      }
      disposedAtExit.RemoveAll(context => !context.IsAlive);
      disposedAtExit.Add(new global::System.WeakReference(this));
    }
  }

  static void DisposeOpenContexts(object sender, global::System.EventArgs args) {
    lock (disposedAtExit) {
      foreach (var context in disposedAtExit) {
        var open = context.Target as Context;
        if (open != null) open.Dispose();
      }
    }
  }

  /// <summary>Submits a batch whose pixels are a managed byte[]: the array is pinned during this
  /// call only, which returns once ferry has read the source (ferry_batch_wait_source). The
  /// conversion may still run: Wait() on the batch. source gives shape and strides.</summary>
  public unsafe Batch Submit(Source source, byte[] data, Transform transform = null, Output output = null, SubmitOptions options = null) {
    fixed (byte* p = data) {
      return SubmitPinned(source, (global::System.IntPtr)p, data == null ? 0UL : (ulong)data.Length, transform, output, options);
    }
  }

#if FERRY_HAVE_SPAN
  /// <summary>As Submit(Source, byte[], ...), for a span (pinned during the call).</summary>
  public unsafe Batch Submit(Source source, global::System.ReadOnlySpan<byte> data, Transform transform = null, Output output = null, SubmitOptions options = null) {
    fixed (byte* p = &global::System.Runtime.InteropServices.MemoryMarshal.GetReference(data)) {
      return SubmitPinned(source, (global::System.IntPtr)p, (ulong)data.Length, transform, output, options);
    }
  }
#endif

  Batch SubmitPinned(Source source, global::System.IntPtr data, ulong bytes, Transform transform, Output output, SubmitOptions options) {
    if (transform != null) transform.CheckLengths(source);
    if (source != null && source.Images != null)
      throw new InvalidArgumentException("source has images (Source.SetImages): submit it without data");
    Batch batch = SubmitPinnedNative(source, data, bytes, transform, output, options);
    batch.KeepAlive = this;
    if (transform != null) transform.AugmentCalled(batch);
    return batch;
  }

  /// <summary>ferry_transform_apply: data already in the context's memory; stream IntPtr.Zero is the
  /// legacy stream.</summary>
  public void Convert(Source source, Transform transform, Output output, global::System.IntPtr stream = default(global::System.IntPtr)) {
    if (transform != null) transform.CheckLengths(source);
    var pins = source == null ? null : source.PinImages();
    try {
      ConvertNative(source, transform, output, stream);
      if (transform != null) transform.AugmentCalled(null);
    } finally {
      if (pins != null) source.UnpinImages(pins);
    }
  }
%}

%typemap(cscode) ferry_batch_s %{
  internal Context KeepAlive;

  /// <summary>A new reference to the output, valid until the Tensor is disposed (or finalized),
  /// even after this batch and the context are disposed. Read it after Wait(). Dispose() of the
  /// batch never blocks: a batch in flight finishes on its own.</summary>
  public Tensor RetainOutput() { return new Tensor(RetainOutputReference()); }

  /// <summary>The state and output, e.g. "Batch(complete, float32 NCHW [2, 3, 224, 224] on CPU, ...)".</summary>
  public override string ToString() {
    return "Batch(" + (swigCPtr.Handle == global::System.IntPtr.Zero ? "disposed" : Describe()) + ")";
  }
%}

%typemap(cscode) ferry_source %{
  /// <summary>One address per sample (each SampleBytes long); sets N.</summary>
  public void SetSamples(params global::System.IntPtr[] addresses) {
    ClearImages();
    SetSamples(addresses, addresses == null ? 0UL : (ulong)addresses.Length);
    Buffer = null;
  }
  /// <summary>Shape of the batch: n images of h x w x c (layout NHWC unless set).</summary>
  public Source SetShape(long n, long h, long w, long c) {
    N = n; H = h; W = w; C = c;
    return this;
  }

  /// <summary>A batch of n camera or video frames of h x w pixels in format (ferry_source.format):
  /// each decoded to R, G, B in the conversion, then transformed as a 3-channel image (a channel map
  /// of 2, 1, 0 gives BGR). The pixels are one buffer (SetBuffer, Submit's byte[] or Data): frame i at
  /// i * StrideN (0: one after another), its planes laid out as the format says (NV12: the Y rows,
  /// then the U,V rows), or where SetPlaneOffsets and SetPlanePitches put them. Sets C to 3, the
  /// layout to NHWC and the channel strides to 0; the colour options keep their values (Bt601,
  /// Limited, ChromaNearest unless set). ferry checks the rest at Submit (an exception naming the
  /// field: source.bytes for a buffer too small for the frames, source.format for a value outside
  /// PixelFormat, ...).</summary>
  public Source SetFrame(long n, long h, long w, PixelFormat format) {
    Format = format;
    N = n; H = h; W = w; C = 3;
    Layout = Layout.Nhwc;
    StrideC = 0; StrideH = 0; StrideW = 0;
    return this;
  }
  /// <summary>SetFrame with the format by name: see PixelFormats.Parse.</summary>
  public Source SetFrame(long n, long h, long w, string format) {
    return SetFrame(n, h, w, PixelFormats.Parse(format));
  }
  /// <summary>The format by name ("nv12", "yuyv", "bayer_rggb", ...): see PixelFormats.Parse.</summary>
  public Source SetFormat(string name) {
    Format = PixelFormats.Parse(name);
    return this;
  }
  /// <summary>A YUV frame's matrix by name: "bt601", "bt709" or "bt2020".</summary>
  public Source SetColorMatrix(string name) {
    ColorMatrix = ColorMatrices.Parse(name);
    return this;
  }
  /// <summary>A YUV frame's range by name: "limited" or "full".</summary>
  public Source SetColorRange(string name) {
    ColorRange = ColorRanges.Parse(name);
    return this;
  }
  /// <summary>How a YUV frame's chroma reaches every pixel, by name: "nearest" or "linear".</summary>
  public Source SetChromaFilter(string name) {
    ChromaFilter = ChromaFilters.Parse(name);
    return this;
  }
  /// <summary>Where each frame's planes lie, in bytes from the frame's start: 1 to 3 values, plane 0
  /// first (the rest 0). All 0 (the default): the planes follow one another. For planes in separate
  /// buffers, give the lowest address as Data and each plane's distance from it.</summary>
  public Source SetPlaneOffsets(params long[] values) {
    SetPlaneOffsets(values, values == null ? 0UL : (ulong)values.Length);
    return this;
  }
  /// <summary>The bytes from one row of each plane to the next (1 to 3 values; 0: the format's
  /// default).</summary>
  public Source SetPlanePitches(params long[] values) {
    SetPlanePitches(values, values == null ? 0UL : (ulong)values.Length);
    return this;
  }
  /// <summary>The three plane offsets (ferry_source.plane_offset).</summary>
  public long[] PlaneOffsets() { return new long[] { PlaneOffsetAt(0), PlaneOffsetAt(1), PlaneOffsetAt(2) }; }
  /// <summary>The three plane pitches (ferry_source.plane_pitch).</summary>
  public long[] PlanePitches() { return new long[] { PlanePitchAt(0), PlanePitchAt(1), PlanePitchAt(2) }; }

  /// <summary>The managed array set with SetBuffer, or null.</summary>
  public byte[] Buffer { get; private set; }
  internal int BufferOffset, BufferCount;

  /// <summary>Uses data[offset, offset + count) (count -1: to the end) as the batch's pixels,
  /// without a copy: Submit(source, ...) pins the array and returns at once; the array stays
  /// pinned (and alive) until ferry no longer reads it, even if the Batch is dropped. Keep it
  /// unchanged until Batch.SourceReusable(). Data, Bytes and samples are then ignored; SetBuffer(null)
  /// goes back to them.</summary>
  public Source SetBuffer(byte[] data, int offset = 0, int count = -1) {
    if (data != null && (offset < 0 || offset > data.Length || count < -1 || (count >= 0 && count > data.Length - offset)))
      throw new InvalidArgumentException("offset " + offset + " and count " + count + " are outside the array of "
                                         + data.Length + " bytes");
    ClearImages();
    Buffer = data;
    BufferOffset = offset;
    BufferCount = data == null ? 0 : (count < 0 ? data.Length - offset : count);
    return this;
  }

  /// <summary>One image of a batch whose images differ in size (Source.SetImages): h x w x c uint8
  /// pixels in the source's layout. rowStride: the bytes from one row to the next (an OpenCV step, a
  /// region of interest; in NCHW within each channel's plane, planes h rows apart); 0: packed.</summary>
  public sealed class Image {
    internal readonly byte[] Array;
    internal readonly global::System.IntPtr Address;
    internal readonly long Bytes;
    public long H { get; private set; }
    public long W { get; private set; }
    public long C { get; private set; }
    public long RowStride { get; private set; }

    /// <summary>Pixels in a managed array: Submit pins it (GCHandle) until ferry no longer reads it,
    /// even if the Batch is dropped; keep it unchanged until Batch.SourceReusable().</summary>
    public Image(byte[] pixels, long h, long w, long c, long rowStride = 0) {
      Array = pixels;
      Bytes = pixels == null ? 0 : pixels.LongLength;
      H = h; W = w; C = c; RowStride = rowStride;
    }

    /// <summary>Pixels in unmanaged memory, bytes long (from Marshal.AllocHGlobal, a pinned buffer,
    /// another library): keep it alive and unchanged until Batch.SourceReusable().</summary>
    public Image(global::System.IntPtr pixels, long bytes, long h, long w, long c, long rowStride = 0) {
      Address = pixels;
      Bytes = bytes;
      H = h; W = w; C = c; RowStride = rowStride;
    }

    public override string ToString() {
      return "Image(" + H + " x " + W + " x " + C + (RowStride != 0 ? ", rows " + RowStride + " bytes apart" : "")
          + (Array != null ? ", byte[" + Array.Length + "])" : ", " + Bytes + " bytes at 0x" + Address.ToString("x") + ")");
    }
  }

  /// <summary>The images set with SetImages, or null.</summary>
  public Image[] Images { get; private set; }
  long[] imageDescs;

  /// <summary>A batch of images each at its own size (ferry_source.sample_descs), one channel count:
  /// N is images.Length, C theirs. Set the layout first (NHWC unless set). A resize
  /// (Transform.SetResize), or per-sample crops of one size, give the one output size. Replaces the
  /// batch-wide pixels: Data, Bytes, H, W and the strides become 0 (SetBuffer goes back). Throws
  /// InvalidArgumentException naming images[i] for a null image, null pixels, a size that is not
  /// positive, a channel count unlike images[0]'s, a row stride below a row, or pixels that do not fit
  /// the buffer; and for an empty list. Threads: a Source with images is one caller's description;
  /// Submit, Convert and TransformOutputInfo write the pinned addresses into it for the call, so
  /// give each thread its own Source (the Context itself is thread-safe).</summary>
  public Source SetImages(params Image[] images) {
    if (images == null || images.Length == 0)
      throw new InvalidArgumentException("images is " + (images == null ? "null" : "empty")
                                         + ": at least one Source.Image is required");
    var kept = (Image[])images.Clone();
    bool planar = Layout == global::Ferry.Layout.Nchw;
    var descs = new long[7 * kept.Length];
    for (int i = 0; i < kept.Length; ++i) {
      Image image = kept[i];
      string name = "images[" + i + "]";
      if (image == null) throw new InvalidArgumentException(name + " is null: a Source.Image is required");
      if (image.Array == null && image.Address == global::System.IntPtr.Zero)
        throw new InvalidArgumentException(name + " has null pixels: a byte[] or an address is required");
      if (image.H <= 0 || image.W <= 0 || image.C <= 0)
        throw new InvalidArgumentException(name + " is " + image.H + " x " + image.W + " x " + image.C
                                           + " (h x w x c): each must be positive");
      if (image.C != kept[0].C)
        throw new InvalidArgumentException(name + " has " + image.C + " channels but images[0] has " + kept[0].C
                                           + ": the images of a batch share one channel count");
      long row = planar ? image.W : image.W * image.C;
      if (image.RowStride != 0 && image.RowStride < row)
        throw new InvalidArgumentException(name + ".RowStride is " + image.RowStride + " but a row of " + image.W
                                           + (planar ? "" : " x " + image.C) + " pixels is " + row + " bytes");
      long rows = planar ? image.H * image.C : image.H;
      long need;
      try {
        need = checked(image.RowStride == 0 ? image.H * image.W * image.C : (rows - 1) * image.RowStride + row);
      } catch (global::System.OverflowException) {
        throw new InvalidArgumentException(name + " is " + image.H + " x " + image.W + " x " + image.C
                                           + ": its size overflows 64 bits");
      }
      if (need > image.Bytes)
        throw new InvalidArgumentException(name + " is " + image.H + " x " + image.W + " x " + image.C
            + (image.RowStride != 0 ? " with rows " + image.RowStride + " bytes apart" : "") + ", " + need
            + " bytes, but its " + (image.Array != null ? "byte[]" : "memory") + " holds " + image.Bytes);
      descs[7 * i] = image.Address.ToInt64(); // a byte[]'s address comes when Submit pins it
      descs[7 * i + 1] = image.Bytes;
      descs[7 * i + 2] = image.H;
      descs[7 * i + 3] = image.W;
      descs[7 * i + 4] = planar && image.RowStride != 0 ? image.RowStride * image.H : 0;
      descs[7 * i + 5] = image.RowStride;
    }
    ClearSamples();
    SetSampleDescs(descs, (ulong)descs.Length); // sets N
    C = kept[0].C;
    Data = global::System.IntPtr.Zero; Bytes = 0; SampleBytes = 0; H = 0; W = 0;
    StrideN = 0; StrideC = 0; StrideH = 0; StrideW = 0;
    Buffer = null;
    Images = kept;
    imageDescs = descs;
    return this;
  }

  /// <summary>SetImages from a list.</summary>
  public Source SetImages(global::System.Collections.Generic.IEnumerable<Image> images) {
    return SetImages(images == null ? null : new global::System.Collections.Generic.List<Image>(images).ToArray());
  }

  void ClearImages() {
    if (Images == null) return;
    ClearSampleDescs();
    Images = null;
    imageDescs = null;
  }

  /// <summary>Pins each byte[] image and gives the source their addresses; null where no image is a
  /// byte[] (then nothing is pinned). UnpinImages undoes it.</summary>
  internal global::System.Runtime.InteropServices.GCHandle[] PinImages() {
    if (Images == null || global::System.Array.TrueForAll(Images, image => image.Array == null)) return null;
    var pins = new global::System.Runtime.InteropServices.GCHandle[Images.Length];
    var descs = (long[])imageDescs.Clone();
    try {
      for (int i = 0; i < Images.Length; ++i) {
        if (Images[i].Array == null) continue;
        pins[i] = global::System.Runtime.InteropServices.GCHandle.Alloc(Images[i].Array,
            global::System.Runtime.InteropServices.GCHandleType.Pinned);
        descs[7 * i] = pins[i].AddrOfPinnedObject().ToInt64();
      }
      SetSampleDescs(descs, (ulong)descs.Length);
    } catch {
      Unpin(pins);
      throw;
    }
    return pins;
  }

  /// <summary>The descriptions without the pinned addresses again; frees pins (null: kept).</summary>
  internal void UnpinImages(global::System.Runtime.InteropServices.GCHandle[] pins) {
    if (imageDescs != null) SetSampleDescs(imageDescs, (ulong)imageDescs.Length);
    if (pins != null) Unpin(pins);
  }

  internal static void Unpin(global::System.Runtime.InteropServices.GCHandle[] pins) {
    foreach (var pin in pins)
      if (pin.IsAllocated) pin.Free();
  }
%}

%typemap(cscode) ferry_transform %{
  long meanLength, stdLength, perSampleMeanLength, perSampleStdLength, perSampleCropLength, perSampleMirrorLength,
      letterboxValueLength, perSampleWindowLength;

  /// <summary>Output channel k reads input channel values[k]; sets OutChannels to values.Length
  /// (1 to 4). BGR to RGB: 2, 1, 0; BGRA to RGB: 2, 1, 0; gray to RGB: 0, 0, 0.</summary>
  public Transform SetChannelMap(params int[] values) {
    SetChannelMap(values, Count(values));
    OutChannels = values.Length;
    return this;
  }

  /// <summary>The mean subtracted from each output channel (after scale): one value for every
  /// channel, or exactly one per output channel (the source's C, or OutChannels; PadChannelsTo4
  /// adds none). Checked at Submit, where the channels are known: any other length throws
  /// InvalidArgumentException naming mean, its length and the channel count.</summary>
  public Transform SetMean(params float[] values) {
    SetMeanValues(values, Count(values));
    meanLength = values.Length;
    return this;
  }
  /// <summary>The std each output channel is divided by: lengths as for SetMean.</summary>
  public Transform SetStd(params float[] values) {
    SetStdValues(values, Count(values));
    stdLength = values.Length;
    return this;
  }
  /// <summary>Rows of one value per output channel, one row per sample (checked at Submit).</summary>
  public Transform SetPerSampleMean(float[] values, long samples) {
    SetPerSampleMean(values, Count(values), samples);
    perSampleMeanLength = values.Length;
    return this;
  }
  public Transform SetPerSampleStd(float[] values, long samples) {
    SetPerSampleStd(values, Count(values), samples);
    perSampleStdLength = values.Length;
    return this;
  }
  /// <summary>x, y, w, h per sample, flattened.</summary>
  public Transform SetPerSampleCrop(params long[] values) {
    SetPerSampleCrop(values, Count(values));
    perSampleCropLength = values.Length;
    return this;
  }
  public Transform SetPerSampleMirror(params byte[] values) {
    SetPerSampleMirror(values, Count(values));
    perSampleMirrorLength = values.Length;
    return this;
  }
  /// <summary>Resizes each sample's window to width x height in the same pass (on a GPU or the CPU
  /// backend, the same values). 0, 0: no resize.</summary>
  public Transform SetResize(long width, long height) {
    ResizeW = width;
    ResizeH = height;
    return this;
  }
  /// <summary>The bars' value per output channel, in output units (Letterbox, and ShorterSide where the
  /// resized image is smaller than the output): one value for every channel, or one per output
  /// channel (checked at Submit).</summary>
  public Transform SetLetterboxValue(params float[] values) {
    SetLetterboxValue(values, Count(values));
    letterboxValueLength = values.Length;
    return this;
  }
  /// <summary>The resized window for the batch, in source pixels with fractional edges.</summary>
  public Transform SetWindow(float x, float y, float w, float h) {
    using (var window = new RectF()) {
      window.X = x; window.Y = y; window.W = w; window.H = h;
      Window = window;
    }
    return this;
  }
  /// <summary>The resized window per sample: x, y, w, h per sample, flattened (sizes may differ).</summary>
  public Transform SetPerSampleWindow(params float[] values) {
    SetPerSampleWindow(values, Count(values));
    perSampleWindowLength = values.Length;
    return this;
  }
  /// <summary>The interpolation by name: see Interpolations.Parse.</summary>
  public Transform SetInterpolation(string name) {
    Interpolation = Interpolations.Parse(name);
    return this;
  }
  /// <summary>The output dtype by name: see DTypes.Parse.</summary>
  public Transform SetOutDtype(string name) {
    OutDtype = DTypes.Parse(name);
    return this;
  }
  /// <summary>The output layout by name, "NCHW" or "NHWC".</summary>
  public Transform SetOutLayout(string name) {
    OutLayout = Layouts.Parse(name);
    return this;
  }

  /// <summary>Checks the arrays' lengths against source's channels, and the Augment (disposed:
  /// InvalidHandleException); makes room for its draws. Before each call.</summary>
  internal void CheckLengths(Source source) {
    PrepareAugment(source);
    CheckValueLengths(source, meanLength, stdLength, perSampleMeanLength, perSampleStdLength, perSampleCropLength,
                      perSampleMirrorLength, letterboxValueLength, perSampleWindowLength);
  }
  static ulong Count(global::System.Array values) { return values == null ? 0UL : (ulong)values.Length; }
%}

%typemap(cscode) ferry_tensor_info %{
  /// <summary>The shape, in memory-layout order (N,C,H,W or N,H,W,C).</summary>
  public long[] Shape() {
    var shape = new long[Ndim];
    for (int i = 0; i < shape.Length; ++i) shape[i] = ShapeAt(i);
    return shape;
  }
  /// <summary>The strides in bytes, in the order of Shape().</summary>
  public long[] Strides() {
    var strides = new long[Ndim];
    for (int i = 0; i < strides.Length; ++i) strides[i] = StrideAt(i);
    return strides;
  }
  /// <summary>e.g. "TensorInfo(float32 NCHW [2, 3, 224, 224] on CPU, 1204224 bytes at 0x7f.. (strides ...))".</summary>
  public override string ToString() {
    return "TensorInfo(" + (swigCPtr.Handle == global::System.IntPtr.Zero ? "disposed" : Describe()) + ")";
  }
%}
